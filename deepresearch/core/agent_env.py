"""What an agent process's environment carries: an allowlist, never the person's whole shell.

A shell holds tokens an agent has no use for (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
`DATABASE_URL`, other providers' keys), and a page that talks an agent into `env` would find them.
So an agent gets only:

- what any CLI needs to run: PATH, HOME, the user's name and shell, locale, terminal, time zone,
  temporary folder, proxies and CA certificates (BASE);
- the variables its backend declares: its credentials (`credential_env`) and the ones its CLI reads
  for its endpoint, home and options (`cli_env`);
- the names a person chooses to pass (`agent_env: [MY_VAR]` in the configuration);
- the `DEEPRESEARCH_*` variables the runner sets for the tool scripts (added after filtering).

A name ending in `*` is a prefix. The search providers' keys, the scholarly services' contact
addresses and the SSH and GPG agents' sockets never pass, even when a backend or the person names
them: searching and archiving belong to the run's tool service, and an agent must not sign or log
in as the person.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# What a CLI needs to run, whatever it is.
BASE: tuple[str, ...] = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL",
    "LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES",
    "TMPDIR", "TMP", "TEMP",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
    "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
)  # fmt: skip
# The search providers' keys (search/providers/*: key_env; a test keeps the two lists equal), and
# the secrets of specialist source APIs: the tool service's, never an agent's.
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
NEVER_PASSED: frozenset[str] = frozenset((*TOOL_SECRETS, *USER_AGENT_SOCKETS))
RUNNER_PREFIX = "DEEPRESEARCH_"  # set by the runner after filtering, never taken from the person


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Whether `name` is one of `patterns` (a pattern ending in `*` is a prefix)."""
    return any(name == p or (p.endswith("*") and name.startswith(p[:-1])) for p in patterns)


def allowed_names(backend_env: Iterable[str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Every pattern that passes for one backend: BASE, what the backend declares, `extra`."""
    return tuple(dict.fromkeys((*BASE, *backend_env, *extra)))


def agent_environment(
    environ: Mapping[str, str], backend_env: Iterable[str] = (), extra: Iterable[str] = ()
) -> dict[str, str]:
    """The part of `environ` an agent of this backend may see (see the module docstring)."""
    patterns = allowed_names(backend_env, extra)
    return {
        name: value
        for name, value in environ.items()
        if matches(name, patterns) and name not in NEVER_PASSED and not name.startswith(RUNNER_PREFIX)
    }


def withheld(
    environ: Mapping[str, str], backend_env: Iterable[str] = (), extra: Iterable[str] = ()
) -> list[str]:
    """The names in `environ` an agent of this backend does not get (sorted; for doctor)."""
    passed = agent_environment(environ, backend_env, extra)
    return sorted(name for name in environ if name not in passed)
