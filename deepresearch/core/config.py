"""Run configuration: defaults < user config < workspace config < input.md front matter < env < flags.

Every layer is a plain mapping checked against the fields of `Config`; an unknown key or a value of
the wrong type is a `ConfigError` that names the key and the file (or variable) it came from.
"""

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import os
import re
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from deepresearch.core.errors import ConfigError
from deepresearch.core.languages import parse_choice
from deepresearch.core.roles import ROLE_NAMES, TRAITS, Role

AGENT_NAMES = ("copilot", "claude", "gemini", "codex", "opencode", "qwen", "custom")
ROLES = ROLE_NAMES
SEARCH_PROVIDERS = ("serper", "tavily", "exa", "brave", "duckduckgo")  # default chain order
SOURCE_SERVICES = ("arxiv", "crossref", "unpaywall", "doi", "youtube")  # specialist archiving routes
ENV_PREFIX = "DEEPRESEARCH_"
_ENV_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?|\*")
_HOST_PATTERN = re.compile(r"[A-Za-z0-9._:-]+|\[[0-9A-Fa-f:.]+\]")


@dataclass
class RoleConfig:
    """Per-role overrides: which CLI and model a role uses, and its own timeout."""

    agent: str | None = None
    model: str | None = None
    timeout: float | None = None


@dataclass
class Config:
    """Every run setting. Field names are the keys of config files, front matter and env vars."""

    agent: str | None = None  # None: the first installed of copilot, claude, gemini, codex, opencode, qwen
    model: str | None = None
    roles: dict[str, RoleConfig] = field(default_factory=dict)
    mode: str = "adaptive"  # adaptive | fixed
    effort: str = "standard"  # quick | standard | deep
    max_rounds: int = 5
    min_rounds: int = 1
    quality_threshold: float = 7.0
    min_improvement: float = 0.5
    breadth: int = 4  # at most this many new tasks per round
    max_tasks: int = 6  # at most this many tasks in the initial plan
    concurrency: int = 3
    agent_timeout: float = 900.0  # seconds per agent call
    retries: int = 2  # extra attempts after a retryable failure
    backoff_base: float = 2.0  # seconds; doubles each attempt
    backoff_max: float = 60.0
    # Ceilings (core.effort.CEILINGS): None takes the effort preset's default, 0 means no limit.
    max_agent_calls: int | None = None
    max_searches: int | None = None
    max_cost_usd: float | None = None
    max_minutes: float | None = None
    language: str | None = None  # report language; default: the language of the question
    # languages to search (core/languages.py): exactly these, or +de / -fr to change the planner's
    languages: list[str] = field(default_factory=list)
    time_scope: str | None = None
    geography: str | None = None
    source_requirements: str | None = None
    exclusions: str | None = None
    custom_command: list[str] | None = None  # argv template for the custom backend
    backend_args: dict[str, list[str]] = field(default_factory=dict)  # extra argv per backend
    chromium_path: str | None = None
    archive_timeout: float = 30.0
    archive_max_bytes: int = 15 * 1024 * 1024  # larger pages and documents are recorded as too_large
    archive_concurrency: int = 4  # pages loaded at once by one `deepresearch archive` (2 per host)
    source_base_urls: dict[str, str] = field(default_factory=dict)  # service → base URL (proxies, tests)
    documents: list[str] = field(default_factory=list)  # the person's files, folders, globs
    provided_authority: float = 0.8  # authority of the person's own documents

    # the OS sandbox around agent processes (core/sandbox.py): auto | bwrap | off
    sandbox: str = "auto"
    sandbox_paths: list[str] = field(default_factory=list)  # extra folders agents may write in it
    # extra environment variables agents get besides what their CLI needs (core/agent_env.py);
    # a name ending in * is a prefix
    agent_env: list[str] = field(default_factory=list)
    # hosts and networks archiving may reach although they are private (sources/netguard.py):
    # names, addresses or CIDRs; everything else must resolve to a public address
    allow_private_hosts: list[str] = field(default_factory=list)
    # Top-K saturation per executor task (None: the value of the `effort` preset, see effort.py)
    k_initial: int | None = None
    k_expand: int | None = None
    min_batches: int | None = None
    max_batches: int | None = None
    saturation_threshold: int | None = None
    min_tier1_sources: int | None = None
    batch_calls: str = "in_call"  # in_call: the Top-K batches run inside one executor call | per_batch
    max_calls_per_task: int = 2  # executor calls per task (in_call), however many batches they hold
    # weights of the reflector's sub-scores in the overall quality score
    weight_completeness: float = 1.0
    weight_depth: float = 1.0
    weight_reliability: float = 1.0
    weight_actionability: float = 1.0
    # search
    search_strategy: str = "chain"  # chain | race | batch
    search_providers: list[str] | None = None  # order and selection; None: SEARCH_PROVIDERS order
    search_timeout: float = 15.0  # seconds per provider request
    search_base_urls: dict[str, str] = field(default_factory=dict)  # provider → base URL (proxies, tests)
    # critical analysis and figures
    analysis: str = "auto"  # always | auto (analytical and comparison questions) | never
    max_figures: int = 5  # 0: no figures
    max_chart_failures: int = 2  # consecutive chart failures before the remaining charts are skipped
    figure_timeout: float = 60.0  # seconds to draw one figure
    # evidence
    verify_support: str = "always"  # always: the verifier role judges facts and report sentences | never
    copy_threshold: float = 0.85  # main-text similarity from which a source is a copy of an earlier one
    # follow-up questions: a source archived more than this many days before the question was asked
    # is stale, and a task that needs its current version archives it again (0: always)
    freshness_days: float = 30.0

    def role(self, name: str) -> RoleConfig:
        """The effective agent, model and timeout for a role: its own override, else the role it
        falls back to (see core.roles), else the run-wide setting. A model is inherited only with
        the CLI it was chosen for."""
        own = self.roles.get(name, RoleConfig())
        parent = TRAITS[Role(name)].falls_back_to
        base = (
            self.role(parent.value)
            if parent is not None
            else RoleConfig(self.agent, self.model, self.agent_timeout)
        )
        return RoleConfig(
            agent=own.agent or base.agent,
            model=own.model or (base.model if not own.agent or own.agent == base.agent else None),
            timeout=own.timeout or base.timeout,
        )


_CHOICES: dict[str, tuple[str, ...]] = {
    "agent": AGENT_NAMES,
    "mode": ("adaptive", "fixed"),
    "effort": ("quick", "standard", "deep"),
    "search_strategy": ("chain", "race", "batch"),
    "analysis": ("always", "auto", "never"),
    "verify_support": ("always", "never"),
    "sandbox": ("auto", "bwrap", "off"),
    "batch_calls": ("in_call", "per_batch"),
}
# YAML 1.1 reads `off`, `no`, `never`-like words as booleans: the word a boolean stands for, per
# setting (a boolean with no word here stays an error that names the choices).
_BOOLEAN_WORDS: dict[str, dict[bool, str]] = {
    "sandbox": {False: "off"},
    "analysis": {True: "always", False: "never"},
    "verify_support": {True: "always", False: "never"},
}
_POSITIVE = {"max_rounds", "concurrency", "agent_timeout", "breadth", "max_tasks", "archive_timeout"}
_POSITIVE |= {"search_timeout", "k_initial", "k_expand", "min_batches", "max_batches", "saturation_threshold"}
_POSITIVE |= {"archive_max_bytes", "archive_concurrency"}
_POSITIVE |= {"max_chart_failures", "figure_timeout", "max_calls_per_task"}
_NON_NEGATIVE = {
    "retries",
    "min_rounds",
    "backoff_base",
    "backoff_max",
    "min_improvement",
    "min_tier1_sources",
}
_NON_NEGATIVE |= {"weight_completeness", "weight_depth", "weight_reliability", "weight_actionability"}
_NON_NEGATIVE |= {"max_figures", "freshness_days"}
# The run's ceilings: 0 means no limit; an explicit null (the old way to say so) is read as 0.
CEILING_KEYS = ("max_agent_calls", "max_searches", "max_cost_usd", "max_minutes")
_NON_NEGATIVE |= set(CEILING_KEYS)


def _coerce(key: str, value: Any, annotation: Any, source: str) -> Any:
    """Check (and for env strings, convert) one value against its field type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(key, value, inner[0], source)
    if annotation is bool:
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        if not isinstance(value, bool):
            raise ConfigError(key, source, f"expected true or false, got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(key, source, f"expected a whole number, got {value!r}")
        return value
    if annotation is float:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(key, source, f"expected a number, got {value!r}")
        return float(value)
    if annotation is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(key, source, f"expected text, got {value!r}")
        return str(value)
    if origin is list:
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(key, source, f"expected a list of strings, got {value!r}")
        return list(value)
    raise ConfigError(key, source, f"cannot be set here (value {value!r})")


def _check_range(key: str, value: Any, source: str) -> None:
    if value is None:
        return
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ConfigError(key, source, f"must be one of {', '.join(_CHOICES[key])}, got {value!r}")
    if key in _POSITIVE and value <= 0:
        raise ConfigError(key, source, f"must be greater than 0, got {value!r}")
    if key in _NON_NEGATIVE and value < 0:
        raise ConfigError(key, source, f"must not be negative, got {value!r}")
    if key == "provided_authority" and not 0 <= value <= 1:
        raise ConfigError(key, source, f"must be between 0 and 1, got {value!r}")
    if key == "copy_threshold" and not 0 < value <= 1:
        raise ConfigError(key, source, f"must be above 0 and at most 1, got {value!r}")
    if key == "quality_threshold" and not 0 <= value <= 10:
        raise ConfigError(key, source, f"must be between 0 and 10, got {value!r}")
    if key == "sandbox_paths" and (relative := [v for v in value if not Path(v).expanduser().is_absolute()]):
        raise ConfigError(key, source, f"must be absolute paths (or start with ~), got {', '.join(relative)}")
    if key == "languages":
        try:
            parse_choice(value)
        except ValueError as exc:
            raise ConfigError(key, source, str(exc), hint="for example: languages: [en, zh, +de]") from None
    if key == "agent_env" and (bad := [v for v in value if not _ENV_PATTERN.fullmatch(v)]):
        raise ConfigError(
            key, source, f"expected variable names (a trailing * for a prefix), got {', '.join(bad)}"
        )
    if key == "allow_private_hosts":
        _check_hosts(value, source)
    if key == "search_providers" and set(value) - set(SEARCH_PROVIDERS):
        unknown = ", ".join(sorted(set(value) - set(SEARCH_PROVIDERS)))
        raise ConfigError(key, source, f"unknown provider {unknown}; known: {', '.join(SEARCH_PROVIDERS)}")


def _check_hosts(value: list[str], source: str) -> None:
    """Each entry a host name, an IP address or a network in CIDR notation."""
    for entry in value:
        if "/" in entry and "://" not in entry:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError as exc:
                raise ConfigError(
                    "allow_private_hosts", source, f"{entry!r} is not a network: {exc}"
                ) from exc
        elif not _HOST_PATTERN.fullmatch(entry):
            raise ConfigError(
                "allow_private_hosts",
                source,
                f"{entry!r} is not a host name, address or CIDR network",
                hint="write names without scheme or port, e.g. intranet.example.com, 10.0.0.0/8",
            )


def _roles_from(value: Any, source: str) -> dict[str, RoleConfig]:
    if not isinstance(value, Mapping):
        raise ConfigError("roles", source, "expected a mapping of role name to {agent, model, timeout}")
    roles: dict[str, RoleConfig] = {}
    for role, spec in value.items():
        if role not in ROLES:
            raise ConfigError(
                f"roles.{role}",
                source,
                f"unknown role; roles are {', '.join(ROLES)}",
                hint=nearest_hint(role, ROLES),
            )
        if not isinstance(spec, Mapping):
            raise ConfigError(f"roles.{role}", source, "expected a mapping with agent, model or timeout")
        kwargs: dict[str, Any] = {}
        for key, item in spec.items():
            if key not in ("agent", "model", "timeout"):
                raise ConfigError(
                    f"roles.{role}.{key}",
                    source,
                    "unknown key; use agent, model or timeout",
                    hint=nearest_hint(str(key), ("agent", "model", "timeout")),
                )
            annotation = str | None if key != "timeout" else float | None
            kwargs[key] = _coerce(f"roles.{role}.{key}", item, annotation, source)
        if kwargs.get("agent") is not None and kwargs["agent"] not in AGENT_NAMES:
            raise ConfigError(f"roles.{role}.agent", source, f"must be one of {', '.join(AGENT_NAMES)}")
        roles[role] = RoleConfig(**kwargs)
    return roles


def _base_urls_from(value: Any, source: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ConfigError("search_base_urls", source, "expected a mapping of provider name to base URL")
    for name in value:
        if name not in SEARCH_PROVIDERS:
            known = ", ".join(SEARCH_PROVIDERS)
            raise ConfigError(f"search_base_urls.{name}", source, f"unknown provider; known: {known}")
    return {str(k): _coerce(f"search_base_urls.{k}", v, str, source) for k, v in value.items()}


def _service_urls_from(value: Any, source: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ConfigError("source_base_urls", source, "expected a mapping of service name to base URL")
    urls: dict[str, str] = {}
    for name, url in value.items():
        key = f"source_base_urls.{name}"
        if name not in SOURCE_SERVICES:
            raise ConfigError(key, source, f"unknown service; known: {', '.join(SOURCE_SERVICES)}")
        text = _coerce(key, url, str, source).rstrip("/")
        if not text.startswith(("http://", "https://")):
            raise ConfigError(key, source, f"expected an http(s) base URL, got {url!r}")
        urls[str(name)] = text
    return urls


def nearest_hint(name: str, known: Iterable[str]) -> str | None:
    """ "did you mean X?" for the known name nearest to a misspelt one (None when none is near)."""
    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f"did you mean {near[0]}?" if near else None


def apply_layer(config: Config, layer: Mapping[str, Any], source: str) -> Config:
    """A copy of `config` with every key of `layer` checked and applied; errors name key and source."""
    hints = typing.get_type_hints(Config)
    updates: dict[str, Any] = {}
    for key, value in layer.items():
        if key not in hints:
            hint = nearest_hint(str(key), hints) or "every setting is described in docs/input-reference.md"
            raise ConfigError(str(key), source, "unknown setting", hint=hint)
        if key == "roles":
            merged = dict(config.roles)
            merged.update(_roles_from(value, source))
            updates["roles"] = merged
            continue
        if key == "backend_args":
            if not isinstance(value, Mapping):
                raise ConfigError(key, source, "expected a mapping of backend name to a list of arguments")
            updates[key] = {
                str(k): _coerce(f"backend_args.{k}", v, list[str], source) for k, v in value.items()
            }
            continue
        if key == "search_base_urls":
            updates[key] = {**config.search_base_urls, **_base_urls_from(value, source)}
            continue
        if key == "source_base_urls":
            updates[key] = {**config.source_base_urls, **_service_urls_from(value, source)}
            continue
        if isinstance(value, bool) and key in _CHOICES:
            if value not in _BOOLEAN_WORDS.get(key, {}):
                choices = ", ".join(_CHOICES[key])
                raise ConfigError(
                    key, source, f"must be one of {choices}, got {value} (YAML reads yes/on as true)"
                )
            value = _BOOLEAN_WORDS[key][value]  # `sandbox: off` as the README writes it
        if key == "documents" and isinstance(value, str):
            value = [value]  # one path (which may hold spaces), not a list of words
        if key == "languages" and isinstance(value, str):
            value = value.replace(",", " ").split()  # languages: en, de
        coerced = _coerce(key, value, hints[key], source)
        if coerced is None and key in CEILING_KEYS:
            coerced = 0  # `max_agent_calls: null` meant "no limit" before ceilings had defaults
        _check_range(key, coerced, source)
        updates[key] = coerced
    return dataclasses.replace(config, **updates)


def read_yaml_layer(path: Path) -> dict[str, Any]:
    """A config file as a mapping ({} when absent); a YAML error names the file and line."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise ConfigError("(file)", where, f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("(file)", str(path), "expected a mapping of settings at the top level")
    return data


def env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    """`DEEPRESEARCH_<SETTING>`, `DEEPRESEARCH_<ROLE>_AGENT|MODEL|TIMEOUT` and
    `DEEPRESEARCH_<PROVIDER or SERVICE>_BASE_URL` variables as a layer."""
    hints = typing.get_type_hints(Config)
    layer: dict[str, Any] = {}
    roles: dict[str, dict[str, str]] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        key = name[len(ENV_PREFIX) :].lower()
        role, _, attr = key.partition("_")
        if role in ROLES and attr in ("agent", "model", "timeout"):
            roles.setdefault(role, {})[attr] = value
        elif attr == "base_url" and role in SEARCH_PROVIDERS:
            layer.setdefault("search_base_urls", {})[role] = value
        elif attr == "base_url" and role in SOURCE_SERVICES:
            layer.setdefault("source_base_urls", {})[role] = value
        elif key == "documents":
            layer[key] = [part for part in value.split(os.pathsep) if part]  # like PATH
        elif key in hints and key not in ("roles", "backend_args", "search_base_urls", "source_base_urls"):
            layer[key] = value if value != "" else None
        elif key not in ("home", "debug", "workdir", "service", "task", "call", "batch"):  # set for agents
            near = difflib.get_close_matches(key, list(hints), n=1, cutoff=0.75)
            hint = f"did you mean {ENV_PREFIX}{near[0].upper()}?" if near else None
            raise ConfigError(name, "environment", "unknown setting", hint=hint)
    if roles:
        layer["roles"] = roles
    return layer


def user_config_path(environ: Mapping[str, str]) -> Path:
    """~/.config/deepresearch/config.yaml, honouring XDG_CONFIG_HOME."""
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "deepresearch" / "config.yaml"


def load_config(
    workdir: Path,
    environ: Mapping[str, str] | None = None,
    front_matter: Mapping[str, Any] | None = None,
    front_matter_source: str = "input.md",
    flags: Mapping[str, Any] | None = None,
) -> Config:
    """The effective configuration for a run in `workdir`, all layers applied in order."""
    env = dict(os.environ if environ is None else environ)
    config = Config()
    user_path = user_config_path(env)
    config = apply_layer(config, read_yaml_layer(user_path), str(user_path))
    work_path = workdir / "deepresearch.yaml"
    config = apply_layer(config, read_yaml_layer(work_path), str(work_path))
    if front_matter:
        config = apply_layer(config, front_matter, front_matter_source)
    config = apply_layer(config, env_layer(env), "environment")
    if flags:
        config = apply_layer(config, {k: v for k, v in flags.items() if v is not None}, "command line")
    if config.min_rounds > config.max_rounds:
        raise ConfigError("min_rounds", "configuration", "must not exceed max_rounds")
    return config


def settings_snapshot(config: Config) -> dict[str, Any]:
    """The run settings recorded in task.md's front matter (no secrets: there are none in Config)."""
    keys = (
        "mode", "effort", "max_rounds", "min_rounds", "quality_threshold", "min_improvement", "breadth",
        "concurrency", "agent_timeout", "max_agent_calls", "max_searches", "max_cost_usd", "max_minutes",
        "language", "time_scope", "geography", "batch_calls", "max_calls_per_task",
    )  # fmt: skip
    return {k: getattr(config, k) for k in keys if getattr(config, k) is not None}
