"""Configuration layers and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from deepresearch.core.config import load_config
from deepresearch.core.errors import ConfigError


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


def test_layers_apply_in_order(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "deepresearch"
    user.mkdir(parents=True)
    (user / "config.yaml").write_text("max_rounds: 2\nconcurrency: 2\nquality_threshold: 6\nagent: claude\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "deepresearch.yaml").write_text(
        "concurrency: 4\nroles:\n  executor: {agent: gemini, model: gemini-2.5-flash}\n  reflector: {model: haiku}\n"
    )
    config = load_config(
        work,
        env_for(tmp_path, DEEPRESEARCH_QUALITY_THRESHOLD="8", DEEPRESEARCH_SYNTHESIZER_MODEL="opus"),
        front_matter={"max_rounds": 3, "concurrency": 5},
        flags={"concurrency": 6, "model": None},
    )
    assert config.max_rounds == 3  # front matter over user config
    assert config.concurrency == 6  # flags over everything
    assert config.quality_threshold == 8.0  # environment over files
    assert config.role("executor").agent == "gemini" and config.role("executor").model == "gemini-2.5-flash"
    assert config.role("reflector").agent == "claude" and config.role("reflector").model == "haiku"
    assert config.role("synthesizer").model == "opus"
    assert config.role("planner").agent == "claude" and config.role("planner").timeout == 900.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_round: 3\n", "deepresearch.yaml: max_round: unknown setting"),
        ("max_rounds: three\n", "deepresearch.yaml: max_rounds: expected a whole number, got 'three'"),
        ("concurrency: 0\n", "deepresearch.yaml: concurrency: must be greater than 0, got 0"),
        (
            "agent: chatgpt\n",
            "deepresearch.yaml: agent: must be one of copilot, claude, gemini, codex, opencode, qwen, custom",
        ),
        ("roles:\n  writer: {agent: claude}\n", "deepresearch.yaml: roles.writer: unknown role"),
        ("roles:\n  executor: {agnt: claude}\n", "deepresearch.yaml: roles.executor.agnt: unknown key"),
        ("max_rounds: [1\n", "deepresearch.yaml:2: (file): not valid YAML"),
    ],
)
def test_bad_values_name_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "deepresearch.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env_for(tmp_path))
    assert message in str(info.value)


def test_bad_environment_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="environment: max_rounds: expected a whole number"):
        load_config(tmp_path, env_for(tmp_path, DEEPRESEARCH_MAX_ROUNDS="lots"))
    with pytest.raises(ConfigError, match="environment: DEEPRESEARCH_MAX_ROUDS: unknown setting"):
        load_config(tmp_path, env_for(tmp_path, DEEPRESEARCH_MAX_ROUDS="3"))


def test_min_rounds_cannot_exceed_max_rounds(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="min_rounds"):
        load_config(tmp_path, env_for(tmp_path), flags={"max_rounds": 1}, front_matter={"min_rounds": 2})


def test_sandbox_settings_are_checked(tmp_path: Path) -> None:
    from deepresearch.core.config import Config, apply_layer
    from deepresearch.core.errors import ConfigError

    config = apply_layer(Config(), {"sandbox": "bwrap", "sandbox_paths": ["~/.mycli", "/opt/x"]}, "test")
    assert config.sandbox == "bwrap" and config.sandbox_paths == ["~/.mycli", "/opt/x"]
    with pytest.raises(ConfigError) as raised:
        apply_layer(Config(), {"sandbox": "docker"}, "input.md")
    assert "sandbox: must be one of auto, bwrap, off" in str(raised.value)
    with pytest.raises(ConfigError) as raised:
        apply_layer(Config(), {"sandbox_paths": ["relative/dir"]}, "input.md")
    assert "must be absolute paths" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [("sandbox: off", "sandbox", "off"), ("sandbox: no", "sandbox", "off"), ("analysis: never", "analysis", "never"),
     ("analysis: off", "analysis", "never"), ("analysis: yes", "analysis", "always"),
     ("verify_support: no", "verify_support", "never"), ("verify_support: on", "verify_support", "always")],
)  # fmt: skip
def test_enumerated_settings_read_the_words_the_readme_writes(
    tmp_path: Path, text: str, key: str, value: str
) -> None:
    (tmp_path / "deepresearch.yaml").write_text(text + "\n")
    assert getattr(load_config(tmp_path, env_for(tmp_path)), key) == value
    front_matter = yaml.safe_load(text)  # input.md's front matter is YAML too
    assert getattr(load_config(tmp_path / "none", env_for(tmp_path), front_matter=front_matter), key) == value


def test_a_boolean_with_no_word_of_its_own_names_the_choices(tmp_path: Path) -> None:
    (tmp_path / "deepresearch.yaml").write_text("sandbox: yes\n")
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env_for(tmp_path))
    assert "sandbox: must be one of auto, bwrap, off" in str(raised.value)


def test_agent_env_and_allow_private_hosts_are_checked(tmp_path: Path) -> None:
    good = "agent_env: [MY_TOKEN, CORP_*]\nallow_private_hosts: [intranet.example, 10.0.0.0/8, '::1']\n"
    (tmp_path / "deepresearch.yaml").write_text(good)
    config = load_config(tmp_path, env_for(tmp_path))
    assert config.agent_env == ["MY_TOKEN", "CORP_*"]
    assert config.allow_private_hosts == ["intranet.example", "10.0.0.0/8", "::1"]
    env = env_for(tmp_path, DEEPRESEARCH_AGENT_ENV="A B", DEEPRESEARCH_ALLOW_PRIVATE_HOSTS="127.0.0.1")
    assert load_config(tmp_path / "none", env).agent_env == ["A", "B"]
    for bad, said in [("agent_env: ['MY TOKEN']", "expected variable names"),
                      ("allow_private_hosts: ['http://x/']", "is not a host name"),
                      ("allow_private_hosts: ['10.0.0.0/33']", "is not a network")]:  # fmt: skip
        (tmp_path / "deepresearch.yaml").write_text(bad + "\n")
        with pytest.raises(ConfigError) as raised:
            load_config(tmp_path, env_for(tmp_path))
        assert said in str(raised.value)
