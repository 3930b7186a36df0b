"""What an agent process's environment may not carry: the tools' secrets and the user's agents.

Search providers' API keys (and the contact address some scholarly APIs want) belong to the run's
tool service, which performs every search and archive; an agent only runs the thin clients, so a
page that talks an agent into `env` finds none of them. The SSH and GPG agent sockets would let a
hijacked agent sign or log in as the user. The agent CLIs' own model credentials stay: each CLI
needs them to reach its model.
"""

from __future__ import annotations

from collections.abc import Mapping

# The search providers' keys (search/providers/*: key_env; a test keeps the two lists equal), and
# the secrets of specialist source APIs.
TOOL_SECRETS: tuple[str, ...] = (
    "SERPER_API_KEY",
    "TAVILY_API_KEY",
    "EXA_API_KEY",
    "BRAVE_API_KEY",
    "UNPAYWALL_EMAIL",
    "SEMANTIC_SCHOLAR_API_KEY",
    "CROSSREF_MAILTO",
    "YOUTUBE_API_KEY",
)
# Sockets of the user's own credential agents.
USER_AGENT_SOCKETS: tuple[str, ...] = ("SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO")
HIDDEN_FROM_AGENTS: frozenset[str] = frozenset((*TOOL_SECRETS, *USER_AGENT_SOCKETS))


def agent_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without the variables agents must not see (HIDDEN_FROM_AGENTS)."""
    return {name: value for name, value in environ.items() if name not in HIDDEN_FROM_AGENTS}
