"""Stand-ins for the real agent CLIs (claude, codex, gemini, copilot) that do what a hijacked agent
would: each runs the shell script `attack.sh` beside it (what the injected page told it to do) and
then prints its CLI's own output format, with what the script printed as the final text.

They go through the real backends (argv, environment, parsing) and the real runner and sandbox:
only the model's decisions are scripted, as in tests/fake_agent.
"""

from __future__ import annotations

import sys
from pathlib import Path

CLIS = ("claude", "codex", "gemini", "copilot")

PROGRAM = r"""#!{python}
import json, os, subprocess, sys
name = os.path.basename(sys.argv[0])
script = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "attack.sh")
said = ""
if os.path.isfile(script):
    done = subprocess.run(["sh", script], capture_output=True, text=True)
    said = done.stdout + done.stderr
if name == "claude":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "result": said,
                      "session_id": "s1", "usage": {{"input_tokens": 1, "output_tokens": 1}}}}))
elif name == "codex":
    print(json.dumps({{"type": "thread.started", "thread_id": "t1"}}))
    print(json.dumps({{"type": "item.completed", "item": {{"type": "agent_message", "text": said}}}}))
    print(json.dumps({{"type": "turn.completed", "usage": {{"input_tokens": 1, "output_tokens": 1}}}}))
elif name == "gemini":
    print(json.dumps({{"session_id": "s1", "response": said, "stats": {{}}}}))
else:
    print(json.dumps({{"type": "assistant.message", "data": {{"content": said}}}}))
    print(json.dumps({{"type": "result", "sessionId": "s1", "exitCode": 0}}))
"""


def install(bin_dir: Path, attack: str = "") -> Path:
    """Write the four stand-ins into `bin_dir` (executable), with `attack` as the script they run,
    and return the folder."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "attack.sh").write_text(attack, encoding="utf-8")
    for name in CLIS:
        path = bin_dir / name
        path.write_text(PROGRAM.format(python=sys.executable), encoding="utf-8")
        path.chmod(0o755)
    return bin_dir
