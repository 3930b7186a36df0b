"""opencode and qwen: argv, the per-call config each call gets (its rules, the user's providers
carried without keys), and the parsing of their recorded outputs (tests/agents/fixtures/)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from deepresearch.agents.base import AgentRequest, FailureKind, ModelEndpoint, ToolProfile
from deepresearch.agents.opencode import OpencodeBackend
from deepresearch.agents.opencode_config import worktree_root
from deepresearch.agents.qwen import QwenBackend, split_model
from deepresearch.agents.userconfig import strip_jsonc
from deepresearch.core.agent_env import TOOL_SECRETS
from tests.agents.test_backends import EXTRA, PROMPT, RESEARCHER, WRITER, load_outcome, request


def local_request(tmp_path: Path, tools: ToolProfile, model: str | None = None) -> AgentRequest:
    """A request in a real workspace folder (the backends write the call's config there)."""
    work = tmp_path / "ws"
    scripts = tuple(work / ".deepresearch/bin" / n for n in ("deepresearch-search", "deepresearch-archive"))
    base = request(tools, model, workdir=work)
    return dataclasses.replace(base, tool_commands=scripts if tools is RESEARCHER else ())


# --- opencode ---------------------------------------------------------------------------------

OPENCODE_HEAD = ["opencode", "run", "--format", "json", "--pure", "--print-logs", "--log-level", "ERROR"]


def test_opencode_argv_passes_the_prompt_as_words() -> None:
    argv = OpencodeBackend().build_argv(request(RESEARCHER, "ollama/qwen3:14b", EXTRA))
    assert argv == [*OPENCODE_HEAD, "--title", "E1", "-m", "ollama/qwen3:14b", *EXTRA, *PROMPT.split()]
    assert OpencodeBackend().build_argv(request(WRITER)) == [
        *OPENCODE_HEAD,
        "--title",
        "planner",
        *PROMPT.split(),
    ]


def opencode_env(tmp_path: Path, tools: ToolProfile, base: dict[str, str]) -> tuple[dict[str, str], dict]:
    req = local_request(tmp_path, tools, "local/m")
    env = OpencodeBackend().build_env(req, base)
    config = json.loads((Path(env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json").read_text())
    return env, config


def test_opencode_rules_per_profile(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _, writer = opencode_env(tmp_path, WRITER, {"HOME": str(home)})
    output = str(tmp_path / "ws/logs/calls/planner/planner_result.md").lstrip(
        "/"
    )  # no git above: relative to /
    assert writer["permission"] == {
        "*": "deny", "read": "allow", "glob": "allow", "grep": "allow", "list": "allow",
        "external_directory": "deny", "edit": {"*": "deny", output: "allow"},
    }  # fmt: skip
    assert (writer["snapshot"], writer["share"], writer["autoupdate"], writer["model"]) == (
        False,
        "disabled",
        False,
        "local/m",
    )
    _, researcher = opencode_env(tmp_path, RESEARCHER, {"HOME": str(home)})
    bin_dir = tmp_path / "ws/.deepresearch/bin"
    assert researcher["permission"]["bash"] == {
        "*": "deny",
        f"{bin_dir}/deepresearch-search": "allow", f"{bin_dir}/deepresearch-search *": "allow",
        f"{bin_dir}/deepresearch-archive": "allow", f"{bin_dir}/deepresearch-archive *": "allow",
    }  # fmt: skip


def test_the_local_backends_let_a_self_checking_writer_run_only_the_check_script(tmp_path: Path) -> None:
    check = tmp_path / "ws/.deepresearch/bin/deepresearch-check"
    req = dataclasses.replace(local_request(tmp_path, WRITER, "local/m"), tool_commands=(check,))
    env = OpencodeBackend().build_env(req, {"HOME": str(tmp_path / "home")})
    opencode = json.loads((Path(env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json").read_text())
    assert opencode["permission"]["bash"] == {"*": "deny", str(check): "allow", f"{check} *": "allow"}
    env = QwenBackend().build_env(req, {"HOME": str(tmp_path / "home")})
    rules = json.loads((Path(env["QWEN_HOME"]) / "settings.json").read_text())["permissions"]
    assert [r for r in rules["allow"] if r.startswith("Shell(")] == [f"Shell({check})", f"Shell({check} *)"]
    assert "run_shell_command" not in rules["deny"] and "Shell(cat *)" in rules["ask"]


def test_opencode_edit_pattern_is_relative_to_the_git_worktree_above(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _, config = opencode_env(tmp_path, WRITER, {"HOME": str(tmp_path / "home")})
    assert config["permission"]["edit"] == {"*": "deny", "ws/logs/calls/planner/planner_result.md": "allow"}
    assert worktree_root(tmp_path / "ws" / "logs") == tmp_path
    assert worktree_root(Path("/")) == Path("/")


def test_opencode_carries_the_users_providers_without_keys_or_loosening_rules(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user = home / ".config/opencode/opencode.jsonc"
    user.parent.mkdir(parents=True)
    (home / "key.txt").write_text("file-key\n")
    user.write_text("""{
      // the user's own config, with comments
      "provider": {
        "ollama": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://localhost:11434/v1"}},
        "router": {"options": {"baseURL": "https://openrouter.ai/api/v1", "apiKey": "sk-literal"}},
        "other": {"options": {"apiKey": "{file:~/key.txt}"}},
        "env": {"options": {"apiKey": "{env:OPENROUTER_API_KEY}"}},
      },
      "model": "ollama/qwen3:14b",
      "permission": {"bash": "allow"},
      "agent": {"build": {"permission": {"edit": "allow"}}},
      "mcp": {"x": {"type": "local", "command": ["evil"]}},
      "plugin": ["some-plugin"],
    }""")
    auth = home / ".local/share/opencode/auth.json"
    auth.parent.mkdir(parents=True)
    auth.write_text('{"openrouter": {"type": "api", "key": "sk-auth"}}')
    base = {
        "HOME": str(home),
        "OPENCODE_CONFIG_CONTENT": '{"small_model": "ollama/qwen3:4b"}',
        "PWD": "/elsewhere",
    }
    env, config = opencode_env(tmp_path, WRITER, base)
    assert set(config) == {
        "provider",
        "model",
        "small_model",
        "permission",
        "snapshot",
        "share",
        "autoupdate",
    }
    assert config["permission"]["*"] == "deny" and "bash" not in config["permission"]
    providers = config["provider"]
    assert providers["router"]["options"]["apiKey"] == "{env:DEEPRESEARCH_OPENCODE_KEY_ROUTER}"
    assert providers["other"]["options"]["apiKey"] == "{env:DEEPRESEARCH_OPENCODE_KEY_OTHER}"
    assert providers["env"]["options"]["apiKey"] == "{env:OPENROUTER_API_KEY}"
    written = "".join(p.read_text() for p in (tmp_path / "ws/.deepresearch/opencode").rglob("*.json"))
    assert "sk-literal" not in written and "file-key" not in written and "sk-auth" not in written
    assert env["DEEPRESEARCH_OPENCODE_KEY_ROUTER"] == "sk-literal"
    assert env["DEEPRESEARCH_OPENCODE_KEY_OTHER"] == "file-key"
    assert json.loads(env["OPENCODE_AUTH_CONTENT"]) == {"openrouter": {"type": "api", "key": "sk-auth"}}
    assert "OPENCODE_CONFIG_CONTENT" not in env and env["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"
    call = tmp_path / "ws/.deepresearch/opencode/planner"
    assert env["PWD"] == str(tmp_path / "ws")  # opencode's project folder comes from $PWD
    assert [env[v] for v in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")] == [
        str(call / sub) for sub in ("config", "data", "cache", "state")
    ]
    # The sandbox keeps these writable; they exist before the call (bwrap binds only what exists).
    paths = OpencodeBackend().config_paths(env)
    assert paths == tuple(call / sub / "opencode" for sub in ("config", "data", "cache", "state"))
    assert all(p.is_dir() for p in paths)


def test_opencode_model_endpoint(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user = home / ".config/opencode/opencode.json"
    user.parent.mkdir(parents=True)
    local = {"options": {"baseURL": "http://localhost:11434/v1/", "apiKey": "{env:LOCAL_KEY}"}}
    user.write_text(json.dumps({"provider": {"ollama": local}, "model": "ollama/qwen3:14b"}))
    env = {"HOME": str(home), "LOCAL_KEY": "k"}
    backend = OpencodeBackend()
    assert backend.model_endpoint(None, env) == ModelEndpoint(
        "ollama", "qwen3:14b", "http://localhost:11434/v1", "k"
    )
    assert backend.model_endpoint("ollama/llama3.1:8b", env) == ModelEndpoint(
        "ollama", "llama3.1:8b", "http://localhost:11434/v1", "k"
    )
    assert (
        backend.model_endpoint("qwen3", env) == "model 'qwen3' names no provider: write it as provider/model"
    )
    assert "a built-in provider" in str(backend.model_endpoint("anthropic/claude", env))


@pytest.mark.parametrize(
    ("case", "kind", "said"),
    [
        ("recorded_not_logged_in", FailureKind.NOT_LOGGED_IN, "opencode is not logged in (HTTP 401)"),
        ("recorded_rate_limited", FailureKind.RATE_LIMITED, "opencode: rate limited by the API (HTTP 429)"),
        ("recorded_model_not_found", FailureKind.BAD_ARGUMENTS,
         "opencode: model scripted/nope is not configured: set `model` to provider/model"),
        ("recorded_provider_not_found", FailureKind.BAD_ARGUMENTS, "opencode: model nope/test-model is not configured"),
        ("context_too_long", FailureKind.CONTEXT_TOO_LONG,
         "opencode: the prompt does not fit the model's context window (HTTP 400)"),
        ("timeout", FailureKind.TIMEOUT, "opencode did not finish in time"),
        ("bad_output", FailureKind.BAD_OUTPUT, "opencode finished but its output could not be read"),
    ],
)  # fmt: skip
def test_opencode_failures(case: str, kind: FailureKind, said: str) -> None:
    result = OpencodeBackend().parse(load_outcome("opencode", case))
    assert not result.ok and result.failure is kind and result.message.startswith(said), result.message


def test_opencode_success_reads_the_last_steps_text_tokens_and_cost() -> None:
    result = OpencodeBackend().parse(load_outcome("opencode", "recorded_success"))
    assert result.ok and result.text == "Done." and result.session_id and result.session_id.startswith("ses_")
    # Two steps (the write, then the answer), 120 in / 30 out each; the model's cost entry: $1/$2 per M.
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (240, 60, pytest.approx(0.00036))


# --- qwen -------------------------------------------------------------------------------------


def test_qwen_argv_and_provider_qualified_models() -> None:
    head = ["qwen", "-o", "json", "--approval-mode", "default"]
    assert QwenBackend().build_argv(request(WRITER)) == [*head, PROMPT]
    argv = QwenBackend().build_argv(request(RESEARCHER, "openai/qwen3:14b", EXTRA))
    assert argv == [*head, "--auth-type", "openai", "-m", "qwen3:14b", *EXTRA, PROMPT]
    assert split_model("qwen/qwen3-coder") == (None, "qwen/qwen3-coder")  # OpenRouter's id keeps its slash
    assert split_model("qwen3:14b") == (None, "qwen3:14b") and split_model(None) == (None, None)


def qwen_env(tmp_path: Path, tools: ToolProfile, base: dict[str, str]) -> tuple[dict[str, str], dict]:
    env = QwenBackend().build_env(local_request(tmp_path, tools, "qwen3:14b"), base)
    return env, json.loads((Path(env["QWEN_HOME"]) / "settings.json").read_text())


def test_qwen_rules_per_profile(tmp_path: Path) -> None:
    _, writer = qwen_env(tmp_path, WRITER, {"HOME": str(tmp_path / "home")})
    output = f"//{str(tmp_path / 'ws/logs/calls/planner/planner_result.md').lstrip('/')}"
    rules = writer["permissions"]
    assert rules["allow"] == [f"Edit({output})", f"WriteFile({output})"] and "ask" not in rules
    assert {"run_shell_command", "web_fetch", "web_search", "agent", "skill", "save_memory"} <= set(
        rules["deny"]
    )
    _, researcher = qwen_env(tmp_path, RESEARCHER, {"HOME": str(tmp_path / "home")})
    rules = researcher["permissions"]
    search = tmp_path / "ws/.deepresearch/bin/deepresearch-search"
    assert f"Shell({search})" in rules["allow"] and f"Shell({search} *)" in rules["allow"]
    assert "run_shell_command" not in rules["deny"]
    # What qwen would run unasked as "read-only" is asked (declined headless): cat ~/.ssh/..., env.
    assert {"Shell(cat *)", "Shell(env)", "Shell(printenv *)", "Shell(ls *)"} <= set(rules["ask"])
    assert (researcher["$version"], researcher["privacy"], researcher["memory"]) == (
        4,
        {"usageStatisticsEnabled": False},
        {"enableManagedAutoMemory": False},
    )


def test_qwen_carries_the_users_providers_without_keys(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    provider = {"id": "qwen3:14b", "baseUrl": "http://localhost:11434/v1", "envKey": "OLLAMA_KEY"}
    tuned = {"id": "big", "baseUrl": "http://gpu:8000/v1", "generationConfig": {"maxRetries": 3}}
    (home / ".qwen/settings.json").write_text(json.dumps({
        "modelProviders": {"openai": [provider, tuned]},
        "security": {"auth": {"selectedType": "openai", "apiKey": "sk-in-settings"}},
        "model": {"name": "qwen3:14b"},
        "permissions": {"allow": ["Shell"]}, "tools": {"approvalMode": "yolo"}, "hooks": {"x": 1},
        "env": {"OLLAMA_KEY": "from-settings", "SERPER_API_KEY": "leak"},
    }))  # fmt: skip
    (home / ".qwen/.env").write_text("EXTRA_VAR=from-dotenv\nEXA_API_KEY=leak\n")
    env, settings = qwen_env(tmp_path, RESEARCHER, {"HOME": str(home), "OLLAMA_KEY": "from-shell"})
    assert set(settings) == {
        "modelProviders", "model", "security", "permissions", "privacy", "telemetry", "memory", "general", "$version",
    }  # fmt: skip
    entries = settings["modelProviders"]["openai"]
    assert [e["generationConfig"]["maxRetries"] for e in entries] == [0, 3]  # bounded, unless the user chose
    assert settings["security"] == {"auth": {"selectedType": "openai"}}
    assert "Shell" not in settings["permissions"]["allow"]
    written = (Path(env["QWEN_HOME"]) / "settings.json").read_text()
    assert "sk-in-settings" not in written and "from-settings" not in written
    assert env["OPENAI_API_KEY"] == "sk-in-settings" and env["EXTRA_VAR"] == "from-dotenv"
    assert env["OLLAMA_KEY"] == "from-shell"  # the user's own environment wins over their files
    # The tools' keys are set empty, so no .env file qwen reads can fill them in.
    assert all(env[name] == "" for name in TOOL_SECRETS)
    assert env["QWEN_HOME"] == str(tmp_path / "ws/.deepresearch/qwen/E1") and env["PWD"] == str(
        tmp_path / "ws"
    )
    assert QwenBackend().config_paths(env) == (tmp_path / "ws/.deepresearch/qwen/E1",)


def test_qwen_model_endpoint(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    provider = {"id": "qwen3:14b", "baseUrl": "http://localhost:11434/v1/", "envKey": "OLLAMA_KEY"}
    (home / ".qwen/settings.json").write_text(json.dumps({"modelProviders": {"openai": [provider]}}))
    env = {"HOME": str(home), "OLLAMA_KEY": "k"}
    backend = QwenBackend()
    assert backend.model_endpoint("qwen3:14b", env) == ModelEndpoint(
        "openai", "qwen3:14b", "http://localhost:11434/v1", "k"
    )
    by_env = {
        "HOME": str(home),
        "OPENAI_BASE_URL": "http://lm:1234/v1",
        "OPENAI_MODEL": "m",
        "OPENAI_API_KEY": "x",
    }
    assert backend.model_endpoint(None, by_env) == ModelEndpoint("openai", "m", "http://lm:1234/v1", "x")
    assert "not an OpenAI-compatible provider" in str(backend.model_endpoint("anthropic/claude", env))


@pytest.mark.parametrize(
    ("case", "kind", "said"),
    [
        ("recorded_not_logged_in", FailureKind.NOT_LOGGED_IN, "qwen is not logged in (HTTP 401)"),
        ("recorded_rate_limited", FailureKind.RATE_LIMITED, "qwen: rate limited by the API (HTTP 429)"),
        (
            "context_too_long",
            FailureKind.CONTEXT_TOO_LONG,
            "qwen: the prompt does not fit the model's context",
        ),
        ("crash", FailureKind.CRASHED, "qwen failed: exit code 1: "),
        ("bad_output", FailureKind.BAD_OUTPUT, "qwen finished but its output could not be read"),
        ("timeout", FailureKind.TIMEOUT, "qwen did not finish in time"),
    ],
)
def test_qwen_failures(case: str, kind: FailureKind, said: str) -> None:
    result = QwenBackend().parse(load_outcome("qwen", case))
    assert not result.ok and result.failure is kind and result.message.startswith(said), result.message


def test_qwen_success_reads_the_result_and_tokens() -> None:
    result = QwenBackend().parse(load_outcome("qwen", "recorded_success"))
    assert result.ok and result.text == "Done." and result.session_id
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (240, 60, None)


def test_qwen_login_check() -> None:
    from deepresearch.core.process import ProcessOutcome

    def said(text: str) -> bool | None:
        return QwenBackend().read_login_check(ProcessOutcome(0, text, "", 0.1))

    assert said("=== Authentication Status ===\n✓ Authentication Method: OpenAI-compatible Provider") is True
    assert said("⚠️  Authentication Method: OpenAI-compatible Provider (Incomplete)") is False
    assert said("⚠️  No authentication method configured.") is None  # OPENAI_* variables may still do


def test_no_local_backend_grants_everything(tmp_path: Path) -> None:
    allow_all = {"--auto", "--yolo", "-y", "yolo", "--dangerously-skip-permissions", "auto-edit"}
    for backend in (OpencodeBackend(), QwenBackend()):
        for tools in ToolProfile:
            assert not allow_all & set(backend.build_argv(request(tools)))
    _, config = opencode_env(tmp_path, RESEARCHER, {"HOME": str(tmp_path / "home")})
    assert config["permission"]["*"] == "deny"


def test_jsonc_comments_and_trailing_commas_outside_strings() -> None:
    text = '{"a": "http://x//y", /* c */ "b": [1, 2,], // end\n}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x//y", "b": [1, 2]}
