"""A scripted $EDITOR for the interactive test: first an invalid edit of task.md, then a valid one.

Usage: python editor_script.py COUNTER_FILE TASK_MD. Each call bumps the counter in COUNTER_FILE.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

E2_ROW = re.compile(r"^\| E2 \|.*$", re.M)


def main() -> int:
    counter, task_md = Path(sys.argv[1]), Path(sys.argv[2])
    calls = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(calls + 1))
    text = task_md.read_text(encoding="utf-8")
    if calls == 0:  # depends on a task that does not exist: the validator must name this line
        row = "| E2 | Research the context | D2 | medium | E9 | pending | 1 |"
    else:
        row = "| E2 | Research the context in Europe only | D2 | medium | - | pending | 1 |"
    task_md.write_text(E2_ROW.sub(row, text, count=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
