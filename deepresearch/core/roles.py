"""The agent roles of a run, and what each may do: the one list every layer reads.

Configuration (`roles:` keys, `DEEPRESEARCH_<ROLE>_AGENT`), task.md's front matter, the agent
runner's tool profiles and the displays all iterate `Role`; what each role's call looks like
(prompt template, output contract, checks, repairs) is registered in `pipeline/roles.py`.
Adding a role is one member here, one trait entry below and one spec there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    """An agent role, in the order a run uses them."""

    PLANNER = "planner"
    SUPERVISOR = "supervisor"
    EXECUTOR = "executor"
    VERIFIER = "verifier"  # judges whether quotes support facts and facts support report sentences
    REFLECTOR = "reflector"
    ANALYST = "analyst"
    CHARTS = "charts"
    SYNTHESIZER = "synthesizer"


class ToolProfile(StrEnum):
    """What a role may do. Writers read the workspace and write their one output file: no shell, no
    web where the CLI can restrict tools (a writer with the self-check runs that one command).
    Researchers also run the deepresearch search and archive commands, which need a shell."""

    WRITER = "writer"
    RESEARCHER = "researcher"


@dataclass(frozen=True)
class RoleTraits:
    """What code needs to know about a role before any prompt is rendered."""

    tools: ToolProfile
    # Where its CLI and model come from when the configuration names none for it (None: run-wide).
    falls_back_to: Role | None = None
    # It may run the self-check (`deepresearch check` through the run's tool service): code checks
    # its output and sends it back when a check fails.
    self_check: bool = False


TRAITS: dict[Role, RoleTraits] = {
    Role.PLANNER: RoleTraits(ToolProfile.WRITER),
    Role.SUPERVISOR: RoleTraits(ToolProfile.WRITER),
    Role.EXECUTOR: RoleTraits(ToolProfile.RESEARCHER, self_check=True),
    # Meant for a cheap model: by default whatever the reflector uses.
    Role.VERIFIER: RoleTraits(ToolProfile.WRITER, falls_back_to=Role.REFLECTOR),
    Role.REFLECTOR: RoleTraits(ToolProfile.WRITER),
    Role.ANALYST: RoleTraits(ToolProfile.WRITER, self_check=True),
    Role.CHARTS: RoleTraits(ToolProfile.WRITER),
    Role.SYNTHESIZER: RoleTraits(ToolProfile.WRITER, self_check=True),
}

ROLE_NAMES: tuple[str, ...] = tuple(role.value for role in Role)


def tools_for(role: Role | str) -> ToolProfile:
    """The tool profile of a role."""
    return TRAITS[Role(role)].tools


def self_checks(role: Role | str) -> bool:
    """Whether a role may run the self-check command."""
    return TRAITS[Role(role)].self_check
