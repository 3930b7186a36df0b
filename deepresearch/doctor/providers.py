"""The doctor's provider check for the CLIs that reach any OpenAI-compatible server (opencode, qwen):
which endpoint the configured model resolves to, whether it answers, and whether it serves that
model — without a model call (`GET <base URL>/models`, as Ollama, LM Studio and vLLM all serve it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from deepresearch.agents.base import AgentBackend, ModelEndpoint, ProviderConfigured
from deepresearch.search.model import ErrorKind, ProviderError
from deepresearch.search.transport import fetch

TIMEOUT = 5.0
SHOWN_MODELS = 6


@dataclass(frozen=True)
class ProviderCheck:
    """What the configured provider of one CLI said: reachable (None: nothing to check), and the fix."""

    detail: str
    reachable: bool | None = None
    problem: str = ""
    fix: str = ""


def check_provider(backend: AgentBackend, model: str | None, env: Mapping[str, str]) -> ProviderCheck | None:
    """The endpoint check of a provider-configured backend; None for the other CLIs."""
    if not isinstance(backend, ProviderConfigured):
        return None
    endpoint = backend.model_endpoint(model, env)
    if isinstance(endpoint, str):
        return ProviderCheck(endpoint)
    return probe_endpoint(backend.name, endpoint)


def probe_endpoint(cli: str, endpoint: ModelEndpoint) -> ProviderCheck:
    """`GET <base URL>/models`: reachable, the key accepted, the model among those served."""
    where = f"{endpoint.provider} at {endpoint.base_url}"
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    try:
        body = fetch(cli, f"{endpoint.base_url}/models", timeout=TIMEOUT, headers=headers)
    except ProviderError as exc:
        if exc.kind is ErrorKind.AUTH:
            problem = f"{cli}: the provider {where} refused the API key ({exc.detail})"
            return ProviderCheck(
                f"{where}: key refused", True, problem, f"check the API key {cli} sends to it"
            )
        if exc.kind in (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT):
            problem = f"{cli}: the provider {where} is not reachable ({exc.detail})"
            fix = (
                "start the model server (Ollama: `ollama serve`) or correct its base URL in the CLI's config"
            )
            return ProviderCheck(f"{where}: not reachable", False, problem, fix)
        return ProviderCheck(f"{where}: reachable, but /models answered {exc.detail}", True)
    served = _model_ids(body)
    if served is None or endpoint.model in served:
        known = "" if served is None else f", serves {endpoint.model}"
        return ProviderCheck(f"{where}: reachable{known}", True)
    shown = ", ".join(served[:SHOWN_MODELS]) + (" ..." if len(served) > SHOWN_MODELS else "")
    problem = f"{cli}: the provider {where} does not serve {endpoint.model} (it serves: {shown or 'nothing'})"
    fix = f"pull or load the model (Ollama: `ollama pull {endpoint.model}`), or set `model` to one it serves"
    return ProviderCheck(f"{where}: reachable, {endpoint.model} not served", True, problem, fix)


def _model_ids(body: bytes) -> list[str] | None:
    """The model ids of an OpenAI-style model list (`{"data": [{"id": ...}]}`); None if it is not one."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    data = value.get("data") if isinstance(value, dict) else None
    if not isinstance(data, list):
        return None
    return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
