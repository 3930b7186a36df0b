"""The scripted roles' output files, shared with `deepresearch demo`: they live in the package
(`deepresearch/demo/scripted_roles.py`) so the demo's agent ships in the wheel; the fake agent CLI
(`tests/fake_agent`, which imports this module by its bare name) and the scripted model server
(`tests/model_server.py`) import them from here."""

import re
import shlex

from deepresearch.demo.scripted_roles import *  # noqa: F403
from deepresearch.demo.scripted_roles import DEFAULT_PLAN  # noqa: F401


def check_command(prompt: str) -> list[str] | None:
    """The self-check command a prompt names (executor: "- Self-check: `<command>`"; analyst and
    synthesizer: "Run `<command>` (the one command you may run"). Defined here, not with the demo's
    roles: the demo's agent does not check itself, and bench/call_purposes.py runs the fake agent
    against older code too."""
    match = re.search(r"- Self-check: `([^`]+)`", prompt) or re.search(
        r"Run `([^`]+)` \(the one command you may run", prompt
    )
    return shlex.split(match.group(1)) if match else None
