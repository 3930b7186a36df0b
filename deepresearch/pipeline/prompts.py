"""Role prompts: jinja2 templates from `prompts/`, rendered with StrictUndefined.

The templates ship inside the wheel as `deepresearch/prompts/`; in a source checkout they are the
top-level `prompts/` folder. A missing variable is an error, never an empty string in a prompt.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2


def prompts_dir() -> Path:
    """The folder holding the role templates (installed wheel first, then the source checkout)."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "prompts", here.parent / "prompts"):
        if (candidate / "planner.md.j2").is_file():
            return candidate
    raise FileNotFoundError(f"prompt templates not found next to {here}; the installation is incomplete")


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # markdown prompts, not HTML
        keep_trailing_newline=True,
        trim_blocks=False,
    )


def render_prompt(template: str, **context: Any) -> str:
    """Render `prompts/<template>.md.j2` with `context`; undefined names raise."""
    return _environment().get_template(f"{template}.md.j2").render(**context)
