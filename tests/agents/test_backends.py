"""The agent CLI backends: the exact argv per tool profile, the environment, and the parsing of
each CLI's recorded outputs (fixtures under tests/agents/fixtures/<cli>/<case>/)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from deepresearch.agents.base import AgentBackend, AgentRequest, FailureKind, ProcessOutcome, ToolProfile
from deepresearch.agents.claude import ClaudeBackend
from deepresearch.agents.codex import CodexBackend
from deepresearch.agents.copilot import CopilotBackend
from deepresearch.agents.custom import CustomBackend
from deepresearch.agents.gemini import GeminiBackend, endpoint_settings
from deepresearch.agents.opencode import OpencodeBackend
from deepresearch.agents.parsing import json_object, status_in_text
from deepresearch.agents.qwen import QwenBackend
from deepresearch.agents.registry import (
    detect_default,
    get_backend,
    install_hints,
    resolve_executable,
)
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError, NoAgentError

FIXTURES = Path(__file__).parent / "fixtures"
PROMPT = "Read logs/prompts/E1.md and follow it."
WORKDIR = Path("/runs/q1")
WRITER, RESEARCHER = ToolProfile.WRITER, ToolProfile.RESEARCHER


def load_outcome(cli: str, case: str) -> ProcessOutcome:
    """A recorded CLI run: stdout, stderr and exit (a code, `timeout` or `interrupted`)."""
    folder = FIXTURES / cli / case
    exit_text = (folder / "exit").read_text().strip()
    stopped = exit_text in ("timeout", "interrupted")
    return ProcessOutcome(
        exit_code=None if stopped else int(exit_text),
        stdout=(folder / "stdout").read_text(encoding="utf-8"),
        stderr=(folder / "stderr").read_text(encoding="utf-8"),
        duration=12.5,
        timed_out=exit_text == "timeout",
        interrupted=exit_text == "interrupted",
    )


SCRIPTS = (
    WORKDIR / ".deepresearch/bin/deepresearch-search",
    WORKDIR / ".deepresearch/bin/deepresearch-archive",
)
ROOTS = (Path("/opt/venv"), Path("/usr/lib/node_modules"))


def request(
    tools: ToolProfile, model: str | None = None, extra: tuple[str, ...] = (), workdir: Path = WORKDIR
) -> AgentRequest:
    researcher = tools is RESEARCHER
    return AgentRequest(
        role="executor" if researcher else "planner",
        label="E1" if researcher else "planner",
        prompt=PROMPT,
        prompt_file=workdir / "logs/prompts/E1.md",
        workdir=workdir,
        output_file=workdir
        / ("logs/calls/E1/E1_result.md" if researcher else "logs/calls/planner/planner_result.md"),
        tools=tools,
        model=model,
        extra_args=extra,
        tool_commands=SCRIPTS if researcher else (),
        tool_roots=ROOTS,
        environ={"HOME": "/home/ana"},
    )


# --- argv: each CLI's own permission rules, per tool profile (verified against the real binaries
# by tests/integration/test_confinement.py) ------------------------------------------------------

CLAUDE_WRITER_TOOLS = [
    "--permission-mode",
    "dontAsk",
    "--allowedTools",
    "Read(//runs/q1/**)",
    "Edit(//runs/q1/logs/calls/planner/planner_result.md)",
    "--disallowedTools",
    "Bash WebFetch WebSearch",
]
CLAUDE_RESEARCHER_TOOLS = [
    "--permission-mode",
    "dontAsk",
    "--allowedTools",
    "Bash(/runs/q1/.deepresearch/bin/deepresearch-search:*)",
    "Bash(/runs/q1/.deepresearch/bin/deepresearch-archive:*)",
    "Read(//runs/q1/**)",
    "Edit(//runs/q1/logs/calls/E1/E1_result.md)",
    "--disallowedTools",
    "WebFetch WebSearch",
]
COPILOT_WRITER = [
    "--allow-tool=write(/runs/q1/logs/calls/planner/planner_result.md)",
    "--deny-tool=shell",
    "--excluded-tools=bash,web_fetch,web_search",
    "--disallow-temp-dir",
]
COPILOT_RESEARCHER = [
    "--allow-tool=write(/runs/q1/logs/calls/E1/E1_result.md)",
    "--allow-tool=shell(/runs/q1/.deepresearch/bin/deepresearch-search:*)",
    "--allow-tool=shell(/runs/q1/.deepresearch/bin/deepresearch-archive:*)",
    "--excluded-tools=web_fetch,web_search",
    "--disallow-temp-dir",
]
CODEX_HEAD = ["codex", "exec", "--json", "--skip-git-repo-check", "-C", "/runs/q1"]


def codex_profile(label: str) -> list[str]:
    """codex's permission profile for a call: its own folder writable, nothing else."""
    return [
        "-c",
        'default_permissions="deepresearch"',
        "-c",
        'permissions.deepresearch.filesystem={":minimal" = "read", "/home/ana/.codex/tmp" = "read", '
        '"/opt/venv" = "read", "/usr/lib/node_modules" = "read", ":workspace_roots" = {"." = "read", '
        f'"logs/calls/{label}" = "write"}}}}',
        "-c",
        'web_search="disabled"',
    ]


CODEX_SOCKETS_ONLY = [
    "-c",
    "permissions.deepresearch.network={enabled = true, dangerously_allow_all_unix_sockets = true}",
    "-c",
    "features.network_proxy=true",
]
GEMINI_WRITER = ["--approval-mode", "default", "--policy", "/runs/q1/.deepresearch/gemini/policies/planner"]
GEMINI_RESEARCHER = ["--approval-mode", "default", "--policy", "/runs/q1/.deepresearch/gemini/policies/E1"]
EXTRA = ("--verbose", "--x=1")


@pytest.mark.parametrize(
    ("backend", "tools", "model", "extra", "expected"),
    [
        (
            ClaudeBackend(),
            WRITER,
            None,
            (),
            ["claude", "-p", PROMPT, "--output-format", "json", *CLAUDE_WRITER_TOOLS],
        ),
        (
            ClaudeBackend(),
            RESEARCHER,
            "sonnet",
            EXTRA,
            ["claude", "-p", PROMPT, "--output-format", "json", "--model", "sonnet", *EXTRA,
             *CLAUDE_RESEARCHER_TOOLS],
        ),
        (
            GeminiBackend(),
            WRITER,
            None,
            (),
            ["gemini", "-p", PROMPT, "-o", "json", *GEMINI_WRITER, "--skip-trust"],
        ),
        (
            GeminiBackend(),
            RESEARCHER,
            "gemini-2.5-pro",
            EXTRA,
            ["gemini", "-p", PROMPT, "-o", "json", *GEMINI_RESEARCHER, "--skip-trust", "-m", "gemini-2.5-pro",
             *EXTRA],
        ),
        (CodexBackend(), WRITER, None, (), [*CODEX_HEAD, *codex_profile("planner"), PROMPT]),
        (
            CodexBackend(),
            RESEARCHER,
            "gpt-5",
            EXTRA,
            [*CODEX_HEAD, "-m", "gpt-5", *codex_profile("E1"), *CODEX_SOCKETS_ONLY, *EXTRA, PROMPT],
        ),
        (
            CopilotBackend(),
            WRITER,
            None,
            (),
            ["copilot", "-p", PROMPT, "-C", "/runs/q1", "--no-ask-user", "--output-format", "json",
             *COPILOT_WRITER],
        ),
        (
            CopilotBackend(),
            RESEARCHER,
            "gpt-5",
            EXTRA,
            ["copilot", "-p", PROMPT, "-C", "/runs/q1", "--no-ask-user", "--output-format", "json",
             "--model", "gpt-5", *COPILOT_RESEARCHER, *EXTRA],
        ),
    ],
)  # fmt: skip
def test_argv_per_profile(
    backend: AgentBackend, tools: ToolProfile, model: str | None, extra: tuple[str, ...], expected: list[str]
) -> None:
    assert backend.build_argv(request(tools, model, extra)) == expected


def test_no_backend_grants_everything() -> None:
    allow_all = {"--yolo", "--allow-all", "--allow-all-tools", "--allow-all-paths", "--allow-all-urls",
                 "--dangerously-skip-permissions", "--dangerously-bypass-approvals-and-sandbox", "bypassPermissions",
                 "danger-full-access", "Bash", "Bash(*)", "--sandbox"}  # fmt: skip
    for backend in (ClaudeBackend(), GeminiBackend(), CodexBackend(), CopilotBackend()):
        for tools in ToolProfile:
            argv = backend.build_argv(request(tools))
            assert not allow_all & set(argv), (backend.name, tools, allow_all & set(argv))
            assert not any("network_access" in arg for arg in argv)


def test_a_writer_with_the_self_check_may_run_that_one_script_in_every_cli(tmp_path: Path) -> None:
    check = WORKDIR / ".deepresearch/bin/deepresearch-check"
    req = dataclasses.replace(request(WRITER), tool_commands=(check,), role="synthesizer")
    claude = ClaudeBackend().build_argv(req)
    assert f"Bash({check}:*)" in claude and claude[-1] == "WebFetch WebSearch"
    copilot = CopilotBackend().build_argv(req)
    assert f"--allow-tool=shell({check}:*)" in copilot and "--deny-tool=shell" not in copilot
    assert "--excluded-tools=web_fetch,web_search" in copilot
    assert not [arg for arg in copilot if "shell(" in arg and "deepresearch-check" not in arg]
    assert CODEX_SOCKETS_ONLY[1] in CodexBackend().build_argv(req)
    assert CODEX_SOCKETS_ONLY[1] not in CodexBackend().build_argv(request(WRITER))
    local = dataclasses.replace(
        req, workdir=tmp_path / "run", output_file=tmp_path / "run/logs/synthesizer_result.md"
    )
    GeminiBackend().build_env(local, {"HOME": str(tmp_path / "home")})
    policy = tmp_path / "run/.deepresearch/gemini/policies/planner/deepresearch.toml"
    shell = [r for r in tomllib.loads(policy.read_text())["rule"] if r["toolName"] == ["run_shell_command"]]
    assert [(r["decision"], r.get("commandPrefix")) for r in shell] == [
        ("allow", [str(check)]),
        ("deny", None),
    ]


def test_claude_rules_escape_glob_characters_in_paths() -> None:
    req = request(WRITER, workdir=Path("/runs/q[1]*"))
    argv = ClaudeBackend().build_argv(req)
    assert "Read(//runs/q\\[1\\]\\*/**)" in argv


def test_tool_scripts_with_spaces_are_quoted_as_the_prompt_shows_them() -> None:
    scripts = (Path("/my runs/.deepresearch/bin/deepresearch-search"),)
    req = dataclasses.replace(request(RESEARCHER), tool_commands=scripts)
    assert "Bash('/my runs/.deepresearch/bin/deepresearch-search':*)" in ClaudeBackend().build_argv(req)
    assert (
        "--allow-tool=shell('/my runs/.deepresearch/bin/deepresearch-search':*)"
        in CopilotBackend().build_argv(req)
    )


def test_codex_home_comes_from_the_call_environment() -> None:
    req = dataclasses.replace(request(WRITER), environ={"CODEX_HOME": "/srv/codex", "HOME": "/home/ana"})
    assert '"/srv/codex/tmp" = "read"' in CodexBackend().build_argv(req)[9]


def test_each_cli_names_its_own_config_folders() -> None:
    env = {"HOME": "/home/ana"}
    assert ClaudeBackend().config_paths(env) == (Path("/home/ana/.claude"), Path("/home/ana/.claude.json"))
    assert GeminiBackend().config_paths(env) == (Path("/home/ana/.gemini"),)
    assert GeminiBackend().config_paths({**env, "GEMINI_CLI_HOME": "/w/h"}) == (Path("/w/h/.gemini"),)
    assert CodexBackend().config_paths(env) == (Path("/home/ana/.codex"),)
    assert CopilotBackend().config_paths({**env, "COPILOT_HOME": "/c"}) == (Path("/c"),)
    assert CustomBackend(["mycli"]).config_paths(env) == ()


# --- environment ------------------------------------------------------------------------------


def test_claude_env_bounds_retries_and_keeps_a_user_choice() -> None:
    backend = ClaudeBackend()
    env = backend.build_env(request(WRITER), {"PATH": "/bin", "ANTHROPIC_API_KEY": "k"})
    assert env == {"PATH": "/bin", "ANTHROPIC_API_KEY": "k", "CLAUDE_CODE_MAX_RETRIES": "1"}
    assert (
        backend.build_env(request(WRITER), {"CLAUDE_CODE_MAX_RETRIES": "4"})["CLAUDE_CODE_MAX_RETRIES"] == "4"
    )


def test_gemini_policy_folder_holds_the_roles_rules_and_the_users(tmp_path: Path) -> None:
    user_policies = tmp_path / "home/.gemini/policies"
    user_policies.mkdir(parents=True)
    (user_policies / "mine.toml").write_text(
        '[[rule]]\ntoolName = "mcp_x"\ndecision = "deny"\npriority = 5\n\n'
        '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 999\n'
    )
    (user_policies / "broken.toml").write_text("[[rule\n")
    req = request(RESEARCHER, workdir=tmp_path / "run")
    env = GeminiBackend().build_env(req, {"HOME": str(tmp_path / "home")})
    folder = tmp_path / "run/.deepresearch/gemini/policies/E1"
    assert GeminiBackend().build_argv(req)[5:9] == ["--approval-mode", "default", "--policy", str(folder)]
    rules = tomllib.loads((folder / "deepresearch.toml").read_text())["rule"]
    output = tmp_path / "run/logs/calls/E1/E1_result.md"
    assert rules[0]["toolName"] == ["write_file", "replace"] and rules[0]["decision"] == "allow"
    assert rules[0]["argsPattern"] == (
        '\\0"file_path":"(?:' + re.escape(str(output)) + '|logs/calls/E1/E1_result\\.md)"\\0'
    )
    assert rules[1] == {
        "toolName": ["write_file", "replace", "web_fetch", "google_web_search"],
        "decision": "deny",
        "priority": 990,
    }
    assert rules[2]["commandPrefix"] == [str(p) for p in SCRIPTS] and rules[2]["decision"] == "allow"
    assert rules[3] == {"toolName": ["run_shell_command"], "decision": "deny", "priority": 990}
    # gemini reads the arguments as one string with NUL-framed top-level keys (stableStringify).
    framed = '\0"content":"x"\0\0"file_path":"' + str(output) + '"\0'
    assert re.search(rules[0]["argsPattern"].replace("\\0", "\x00"), framed)
    other = framed.replace("E1_result", "E2_result")
    assert not re.search(rules[0]["argsPattern"].replace("\\0", "\x00"), other)
    # --policy replaces the user's policy folder, so their rules come along, ranked below the run's.
    copied = tomllib.loads((folder / "user-mine.toml").read_text())["rule"]
    assert copied == [
        {"toolName": "mcp_x", "decision": "deny", "priority": 5},
        {"toolName": "run_shell_command", "decision": "allow", "priority": 980},
    ]
    assert "could not be read" in (folder / "user-broken.toml").read_text()
    assert "rule" not in tomllib.loads((folder / "user-broken.toml").read_text())
    assert env == {"HOME": str(tmp_path / "home")}  # no settings, no moved home: the user's login stays
    (user_policies / "mine.toml").unlink()
    (user_policies / "broken.toml").unlink()
    GeminiBackend().build_env(req, {"HOME": str(tmp_path / "home")})
    assert sorted(p.name for p in folder.iterdir()) == ["deepresearch.toml"]


def test_gemini_writer_policy_allows_no_shell(tmp_path: Path) -> None:
    req = request(WRITER, workdir=tmp_path / "run")
    GeminiBackend().build_env(req, {"HOME": str(tmp_path / "home")})
    rules = tomllib.loads(
        (tmp_path / "run/.deepresearch/gemini/policies/planner/deepresearch.toml").read_text()
    )
    shell = [r for r in rules["rule"] if r["toolName"] == ["run_shell_command"]]
    assert [r["decision"] for r in shell] == ["deny"]


def test_gemini_custom_endpoint_gets_a_workspace_home_with_api_key_auth(tmp_path: Path) -> None:
    user_settings = tmp_path / "home/.gemini/settings.json"
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(
        json.dumps({"ui": {"theme": "Dracula"}, "security": {"auth": {"selectedType": "oauth"}}})
    )
    base = {
        "HOME": str(tmp_path / "home"),
        "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9",
        "GEMINI_API_KEY": "key-1",
    }
    env = GeminiBackend().build_env(request(RESEARCHER, workdir=tmp_path / "run"), base)
    home = tmp_path / "run/.deepresearch/gemini/home"
    assert env == {**base, "GEMINI_CLI_HOME": str(home)}
    settings = json.loads((home / ".gemini/settings.json").read_text())
    assert settings == {
        "ui": {"theme": "Dracula"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"maxAttempts": 2},
    }
    assert "key-1" not in json.dumps(settings)
    assert json.loads(user_settings.read_text())["security"]["auth"]["selectedType"] == "oauth"  # untouched


def test_gemini_endpoint_settings_keep_the_users_attempts() -> None:
    assert endpoint_settings({"general": {"maxAttempts": 7}})["general"] == {"maxAttempts": 7}


def test_gemini_vertex_or_keyless_endpoint_leaves_home_alone(tmp_path: Path) -> None:
    for extra in ({"GOOGLE_GENAI_USE_VERTEXAI": "true", "GEMINI_API_KEY": "k"}, {}):
        base = {"HOME": str(tmp_path), "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9", **extra}
        assert "GEMINI_CLI_HOME" not in GeminiBackend().build_env(
            request(RESEARCHER, workdir=tmp_path / "r"), base
        )


def test_copilot_byo_provider_gets_the_model_in_the_environment() -> None:
    base = {"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1"}
    assert CopilotBackend().build_env(request(WRITER, "qwen3"), base)["COPILOT_MODEL"] == "qwen3"
    assert "COPILOT_MODEL" not in CopilotBackend().build_env(request(WRITER, "qwen3"), {})
    kept = CopilotBackend().build_env(request(WRITER, "qwen3"), {**base, "COPILOT_MODEL": "mine"})
    assert kept["COPILOT_MODEL"] == "mine"


def test_codex_and_custom_pass_the_environment_through() -> None:
    base = {"PATH": "/bin", "OPENAI_API_KEY": "k"}
    assert CodexBackend().build_env(request(RESEARCHER), base) == base
    assert CustomBackend(["mycli"]).build_env(request(RESEARCHER), base) == base


# --- parsing: successes -----------------------------------------------------------------------


def test_claude_success_reads_text_session_tokens_and_cost() -> None:
    result = ClaudeBackend().parse(load_outcome("claude", "success"))
    assert result.ok and result.failure is None
    assert result.text == "I wrote logs/briefs/plan.yaml with 5 tasks."
    assert result.session_id == "8c1f6a2e-2b7d-4f1e-9a55-0d3c1e7b9f10"
    assert (result.input_tokens, result.output_tokens) == (38 + 12450 + 60120, 2310)
    assert result.cost_usd == pytest.approx(0.1873)


def test_gemini_success_sums_tokens_over_models() -> None:
    result = GeminiBackend().parse(load_outcome("gemini", "success"))
    assert result.ok
    assert result.text == "I wrote logs/briefs/E1.md with 6 facts and 4 sources."
    assert result.session_id == "3f2b9d7c-51aa-4a8e-9f0e-6c2d1b7e4a90"
    # input = uncached input + cached, per model; output = candidates + thoughts
    assert (result.input_tokens, result.output_tokens) == (20000 + 34000 + 900, 1800 + 120 + 40)
    assert result.cost_usd is None


def test_codex_success_takes_the_last_agent_message_despite_error_items() -> None:
    result = CodexBackend().parse(load_outcome("codex", "success"))
    assert result.ok
    assert result.text == "Done: wrote logs/briefs/E1.md."
    assert result.session_id == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    assert (result.input_tokens, result.output_tokens) == (24763, 122)
    assert result.cost_usd is None


def test_copilot_success_takes_the_last_non_empty_message_and_session() -> None:
    result = CopilotBackend().parse(load_outcome("copilot", "success"))
    assert result.ok
    assert result.text == "Wrote logs/briefs/plan.yaml with 5 tasks."
    assert result.session_id == "b7e0c2a4-9d1f-4c55-8e3a-2f6d0a1c9e77"
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (None, None, None)
    assert result.raw["usage"]["premiumRequests"] == 1  # type: ignore[index]


def test_copilot_reads_token_counts_when_usage_has_model_metrics() -> None:
    result = CopilotBackend().parse(load_outcome("copilot", "success_model_metrics"))
    assert result.ok and result.text == "Done."
    assert (result.input_tokens, result.output_tokens) == (5700, 320)


def test_custom_stdout_is_the_text_and_the_optional_json_contract_gives_usage() -> None:
    plain = CustomBackend(["mycli"]).parse(load_outcome("custom", "success_text"))
    assert plain.ok and plain.text == "Wrote logs/briefs/E1.md"
    assert (plain.input_tokens, plain.cost_usd) == (None, None)
    rich = CustomBackend(["mycli"]).parse(load_outcome("custom", "success_json"))
    assert rich.ok and rich.text == "Wrote logs/briefs/E1.md"
    assert (rich.input_tokens, rich.output_tokens, rich.cost_usd, rich.session_id) == (
        1200,
        340,
        0.0042,
        "run-17",
    )


# --- parsing: failures ------------------------------------------------------------------------

BACKENDS: dict[str, AgentBackend] = {
    "claude": ClaudeBackend(),
    "gemini": GeminiBackend(),
    "codex": CodexBackend(),
    "copilot": CopilotBackend(),
    "custom": CustomBackend(["mycli"]),
}
K = FailureKind
NOT_LOGGED_IN, RATE_LIMITED, OVERLOADED = K.NOT_LOGGED_IN, K.RATE_LIMITED, K.OVERLOADED


@pytest.mark.parametrize(
    ("cli", "case", "kind", "message"),
    [
        (
            "claude",
            "not_logged_in",
            NOT_LOGGED_IN,
            "not logged in: run `claude` once and log in (or set ANTHROPIC_API_KEY)",
        ),
        (
            "claude",
            "not_logged_in_text",
            NOT_LOGGED_IN,
            "claude is not logged in: run `claude` once and log in",
        ),
        ("claude", "http_401", NOT_LOGGED_IN, "claude is not logged in (HTTP 401): run `claude`"),
        ("claude", "http_429", RATE_LIMITED, "claude: rate limited by the API (HTTP 429)"),
        ("claude", "http_500", OVERLOADED, "claude: the API is overloaded or failing (HTTP 500)"),
        ("claude", "max_turns", K.CRASHED, "claude stopped before finishing (error_max_turns)"),
        ("claude", "bad_output", K.BAD_OUTPUT, "claude finished but its output could not be read"),
        ("claude", "crash", K.CRASHED, "claude failed: exit code 1: file:///usr/lib"),
        ("claude", "timeout", K.TIMEOUT, "claude did not finish in time (12s)"),
        ("claude", "interrupted", K.INTERRUPTED, "claude was stopped by an interrupt"),
        ("gemini", "not_logged_in", NOT_LOGGED_IN, "gemini is not logged in: run `gemini` once and sign in"),
        ("gemini", "http_401", NOT_LOGGED_IN, "gemini is not logged in (HTTP 401)"),
        ("gemini", "http_429", RATE_LIMITED, "gemini: rate limited by the API (HTTP 429)"),
        ("gemini", "http_500", OVERLOADED, "gemini: the API is overloaded or failing (HTTP 500)"),
        (
            "gemini",
            "input_42",
            K.BAD_ARGUMENTS,
            "gemini: invalid input (exit 42): No input provided",
        ),
        (
            "gemini",
            "turn_limit_53",
            K.CRASHED,
            "gemini: stopped at its session turn limit (exit 53): Reached max",
        ),
        (
            "gemini",
            "untrusted_55",
            K.BAD_ARGUMENTS,
            "gemini: the workspace folder is not trusted (exit 55): Gemini CLI",
        ),
        ("gemini", "bad_output", K.BAD_OUTPUT, "gemini finished but its output could not be read: "),
        ("gemini", "crash", K.CRASHED, "gemini failed: exit code 1: "),
        ("gemini", "timeout", K.TIMEOUT, "gemini did not finish in time"),
        ("codex", "http_401", NOT_LOGGED_IN, "codex is not logged in (HTTP 401): run `codex login`"),
        ("codex", "http_429", RATE_LIMITED, "codex: rate limited by the API (HTTP 429)"),
        ("codex", "http_500", OVERLOADED, "codex: the API is overloaded or failing (HTTP 500)"),
        ("codex", "bad_output", K.BAD_OUTPUT, "Reading prompt from stdin"),
        ("codex", "crash", K.CRASHED, "codex failed: exit code 101: "),
        ("codex", "timeout", K.TIMEOUT, "codex did not finish in time"),
        (
            "copilot",
            "not_logged_in",
            NOT_LOGGED_IN,
            "copilot is not logged in: run `copilot` once and use /login",
        ),
        ("copilot", "http_401", NOT_LOGGED_IN, "copilot is not logged in (HTTP 401)"),
        ("copilot", "http_429", RATE_LIMITED, "copilot: rate limited by the API (HTTP 429)"),
        ("copilot", "http_500", OVERLOADED, "copilot: the API is overloaded or failing (HTTP 500)"),
        ("copilot", "bad_output", K.BAD_OUTPUT, "Total usage est"),
        ("copilot", "crash", K.CRASHED, "copilot failed: exit code 1: "),
        ("copilot", "timeout", K.TIMEOUT, "copilot did not finish in time"),
        (
            "custom",
            "not_logged_in",
            NOT_LOGGED_IN,
            "custom agent `mycli` is not logged in: log in to `mycli`",
        ),
        ("custom", "rate_limited", RATE_LIMITED, "custom agent `mycli`: rate limited by the API (HTTP 429)"),
        ("custom", "crash", K.CRASHED, "custom agent `mycli` failed: exit code 139: "),
        ("custom", "timeout", K.TIMEOUT, "custom agent `mycli` did not finish in time"),
    ],
)
def test_failures_are_classified_with_a_message_for_the_user(
    cli: str, case: str, kind: FailureKind, message: str
) -> None:
    result = BACKENDS[cli].parse(load_outcome(cli, case))
    assert not result.ok
    assert result.failure is kind
    assert message in result.message


# Outputs of the real CLIs (claude 2.1.329, gemini 0.61.0, codex 0.169.0, copilot 1.0.102) run
# through these backends' argv against a local stand-in model server.
@pytest.mark.parametrize(
    ("cli", "case", "kind"),
    [
        (cli, f"recorded_{case}", kind)
        for cli in ("claude", "gemini", "copilot", "codex")
        for case, kind in [
            ("not_logged_in", NOT_LOGGED_IN),
            ("http_401", NOT_LOGGED_IN),
            ("http_429", RATE_LIMITED),
            ("http_500", OVERLOADED),
        ]
        if (FIXTURES / cli / f"recorded_{case}").is_dir()
    ],
)
def test_recorded_failures(cli: str, case: str, kind: FailureKind) -> None:
    result = BACKENDS[cli].parse(load_outcome(cli, case))
    assert (result.ok, result.failure) == (False, kind)
    assert result.message.startswith(cli)


@pytest.mark.parametrize(
    ("cli", "case", "tokens"),
    [
        ("claude", "recorded_success", (11, 3)),
        ("gemini", "recorded_success", (10, 2)),
        ("codex", "recorded_success", (10, 2)),
        ("codex", "recorded_tool_call", (20, 4)),
        ("copilot", "recorded_success", (None, None)),
        ("copilot", "recorded_tool_call", (None, None)),
    ],
)
def test_recorded_successes(cli: str, case: str, tokens: tuple[int | None, int | None]) -> None:
    result = BACKENDS[cli].parse(load_outcome(cli, case))
    assert result.ok and result.text == "Done."
    assert result.session_id
    assert (result.input_tokens, result.output_tokens) == tokens
    assert (result.cost_usd is not None) == (cli == "claude")


def test_claude_failure_keeps_the_usage_it_reported() -> None:
    result = ClaudeBackend().parse(load_outcome("claude", "http_429"))
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (1200, 80, 0.0123)
    assert result.session_id == "8c1f6a2e-2b7d-4f1e-9a55-0d3c1e7b9f10"


def test_crash_message_shows_the_tail_of_stderr() -> None:
    result = CodexBackend().parse(load_outcome("codex", "crash"))
    assert "RUST_BACKTRACE" in result.message
    assert "thread 'main' panicked" not in result.message.splitlines()[-1]


@pytest.mark.parametrize(
    ("exit_code", "kind"),
    [
        (145, NOT_LOGGED_IN),
        (173, RATE_LIMITED),
        (244, OVERLOADED),
        (41, NOT_LOGGED_IN),
        (42, FailureKind.BAD_ARGUMENTS),
        (53, FailureKind.CRASHED),
        (55, FailureKind.BAD_ARGUMENTS),
        (1, FailureKind.CRASHED),
        (137, FailureKind.CRASHED),
    ],
)
def test_gemini_exit_codes_without_an_error_object(exit_code: int, kind: FailureKind) -> None:
    outcome = ProcessOutcome(exit_code=exit_code, stdout="", stderr="", duration=1.0)
    result = GeminiBackend().parse(outcome)
    assert result.failure is kind
    if exit_code >= 144:
        assert f"(HTTP {exit_code + 256})" in result.message


def test_codex_turn_failed_decides_even_with_exit_zero() -> None:
    outcome = load_outcome("codex", "http_429")
    result = CodexBackend().parse(ProcessOutcome(0, outcome.stdout, "", 3.0))
    assert result.failure is RATE_LIMITED
    assert result.session_id == "0199a213-81c0-7800-8aa1-bbab2a035a53"


def test_copilot_transient_session_error_then_success_is_a_success() -> None:
    errors = load_outcome("copilot", "http_429").stdout.splitlines()[0]
    success = load_outcome("copilot", "success")
    result = CopilotBackend().parse(ProcessOutcome(0, errors + "\n" + success.stdout, "", 9.0))
    assert result.ok and result.text == "Wrote logs/briefs/plan.yaml with 5 tasks."


def test_copilot_session_error_without_result_is_a_failure_even_on_exit_zero() -> None:
    errors = load_outcome("copilot", "http_500").stdout.splitlines()[0]
    assert CopilotBackend().parse(ProcessOutcome(0, errors + "\n", "", 1.0)).failure is OVERLOADED


def test_exit_127_without_a_cause_is_not_installed() -> None:
    outcome = ProcessOutcome(127, "", "sh: 1: mycli: not found\n", 0.1)
    assert CustomBackend(["sh", "-c", "mycli"]).parse(outcome).failure is FailureKind.NOT_INSTALLED


# --- login checks and versions ----------------------------------------------------------------


def test_version_and_login_check_commands() -> None:
    assert ClaudeBackend().version_argv() == ["claude", "--version"]
    assert ClaudeBackend().login_check_argv() == ["claude", "auth", "status"]
    assert CodexBackend().login_check_argv() == ["codex", "login", "status"]
    assert GeminiBackend().login_check_argv() is None
    assert CopilotBackend().login_check_argv() is None
    assert CopilotBackend().version_argv() == ["copilot", "--version"]
    assert CustomBackend(["mycli"]).version_argv() is None


def test_login_check_answers() -> None:
    claude, codex = ClaudeBackend(), CodexBackend()
    # Shapes printed by claude 2.1.329 and codex 0.169.0.
    logged_in = ProcessOutcome(0, '{\n  "loggedIn": true,\n  "authMethod": "api_key"\n}\n', "", 0.2)
    logged_out = ProcessOutcome(1, '{\n  "loggedIn": false,\n  "authMethod": "none"\n}\n', "", 0.2)
    assert claude.read_login_check(logged_in) is True
    assert claude.read_login_check(logged_out) is False
    assert claude.read_login_check(ProcessOutcome(1, "error: unknown command 'auth'\n", "", 0.2)) is None
    assert codex.read_login_check(ProcessOutcome(0, "Logged in using ChatGPT\n", "", 0.2)) is True
    assert codex.read_login_check(ProcessOutcome(1, "", "WARNING: proceeding\nNot logged in\n", 0.2)) is False
    assert codex.read_login_check(ProcessOutcome(2, "", "error: unrecognized subcommand\n", 0.2)) is None


# --- custom template --------------------------------------------------------------------------

TEMPLATE = ["mycli", "--file", "{prompt_file}", "--cwd={workdir}", "--model", "{model}", "--say", "{prompt}"]


def test_custom_template_substitutes_every_placeholder() -> None:
    backend = CustomBackend([*TEMPLATE, "--out", "{output_file}", "{{literal}}"])
    assert backend.executable == "mycli"
    assert backend.build_argv(request(WRITER, "m1", ("--fast",))) == [
        "mycli", "--file", "/runs/q1/logs/prompts/E1.md", "--cwd=/runs/q1", "--model", "m1",
        "--say", PROMPT, "--out", "/runs/q1/logs/calls/planner/planner_result.md", "{literal}", "--fast",
    ]  # fmt: skip


def test_custom_template_without_model_drops_the_model_and_its_flag() -> None:
    argv = CustomBackend(TEMPLATE).build_argv(request(WRITER))
    assert argv == ["mycli", "--file", "/runs/q1/logs/prompts/E1.md", "--cwd=/runs/q1", "--say", PROMPT]
    joined = CustomBackend(["mycli", "--model={model}", "go"]).build_argv(request(WRITER))
    assert joined == ["mycli", "go"]
    positional = CustomBackend(["mycli", "run", "{model}"]).build_argv(request(WRITER))
    assert positional == ["mycli", "run"]


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        (["mycli", "{prompt_path}"], "unknown placeholder {prompt_path}"),
        (["mycli", "{}"], "unknown placeholder {}"),
        (["mycli", "{model!r}"], "takes no format or conversion"),
        (["mycli", "{workdir"], "cannot read"),
        ([], "is empty"),
        (["{workdir}/bin/agent"], "first item must be the program"),
    ],
)
def test_custom_template_errors_name_custom_command(template: list[str], problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        CustomBackend(template)
    assert caught.value.key == "custom_command"
    assert problem in str(caught.value)


# --- registry ---------------------------------------------------------------------------------


def _path_with(folder: Path, *programs: str) -> Callable[[str], str | None]:
    """A real `which` over a PATH that holds only these (executable) programs."""
    folder.mkdir(parents=True, exist_ok=True)
    for program in programs:
        file = folder / program
        file.write_text("#!/bin/sh\nexit 0\n")
        file.chmod(file.stat().st_mode | stat.S_IXUSR)
    return lambda name: shutil.which(name, path=str(folder))


def test_detect_default_prefers_the_vendor_clis_then_opencode_then_qwen(tmp_path: Path) -> None:
    assert detect_default(_path_with(tmp_path / "a", "codex", "gemini")) == "gemini"
    assert detect_default(_path_with(tmp_path / "b", "codex", "claude", "copilot")) == "copilot"
    assert detect_default(_path_with(tmp_path / "c", "codex", "opencode")) == "codex"
    assert detect_default(_path_with(tmp_path / "e", "qwen", "opencode")) == "opencode"
    assert detect_default(_path_with(tmp_path / "f", "qwen")) == "qwen"
    assert detect_default(_path_with(tmp_path / "d")) is None


def test_install_hints_list_each_cli() -> None:
    hints = install_hints()
    packages = ("@github/copilot", "@anthropic-ai/claude-code", "@google/gemini-cli", "@openai/codex")
    for package in (*packages, "opencode-ai", "@qwen-code/qwen-code"):
        assert f"npm install -g {package}" in hints


def test_get_backend_by_name() -> None:
    config = Config(custom_command=["mycli", "{prompt_file}"])
    for name, kind in [
        ("copilot", CopilotBackend),
        ("claude", ClaudeBackend),
        ("gemini", GeminiBackend),
        ("codex", CodexBackend),
        ("opencode", OpencodeBackend),
        ("qwen", QwenBackend),
        ("custom", CustomBackend),
    ]:
        backend = get_backend(name, config)
        assert isinstance(backend, kind) and backend.name == name
    with pytest.raises(ConfigError) as missing:
        get_backend("custom", Config())
    assert missing.value.key == "custom_command" and "custom_command:" in str(missing.value)
    with pytest.raises(ConfigError):
        get_backend("aider", config)


def test_resolve_executable(tmp_path: Path) -> None:
    which = _path_with(tmp_path / "a", "claude", "mycli")
    assert resolve_executable(ClaudeBackend(), which) == str(tmp_path / "a" / "claude")
    assert os.access(resolve_executable(CustomBackend(["mycli"]), which), os.X_OK)
    with pytest.raises(NoAgentError, match=r"^gemini is not installed: npm install -g @google/gemini-cli$"):
        resolve_executable(GeminiBackend(), which)
    with pytest.raises(NoAgentError, match="custom agent command `other`"):
        resolve_executable(CustomBackend(["other"]), which)


# --- shared parsing helpers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("unexpected status 401 Unauthorized: Missing bearer", 401),
        ("exceeded retry limit, last status: 429 Too Many Requests", 429),
        ("API Error: 500 {...}", 500),
        ("HTTP/1.1 503 Service Unavailable", 503),
        ("got 502 Bad Gateway from upstream", 502),
        ("wrote 401 lines to E1.md", None),
    ],
)
def test_status_in_text(text: str, status: int | None) -> None:
    assert status_in_text(text) == status


def test_json_object_skips_a_warning_printed_first() -> None:
    assert json_object('Warning: something\n{\n  "a": 1\n}\n') == {"a": 1}
    assert json_object("not json") is None
    assert json_object("[1, 2]") is None


def test_a_python_traceback_is_a_crash_not_a_network_failure() -> None:
    # Seen by hand: a custom agent's FileNotFoundError was read as ENOTFOUND and retried as transient.
    crashed = ProcessOutcome(
        1, "", "Traceback ...\nFileNotFoundError: [Errno 2] No such file: 'x.yaml'\n", 0.2
    )
    assert BACKENDS["custom"].parse(crashed).failure is FailureKind.CRASHED
    unreachable = ProcessOutcome(1, "", "Error: getaddrinfo ENOTFOUND api.example.com\n", 0.2)
    assert BACKENDS["custom"].parse(unreachable).failure is FailureKind.NETWORK
