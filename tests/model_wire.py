"""The four model APIs the agent CLIs speak, as far as a scripted test server needs them.

For each wire protocol: read a request body into a `Turn` (the conversation's text, the tools the
CLI offers, the tool results so far) and encode a streamed answer (a text, or one tool call) or an
error body. Anthropic Messages (claude), OpenAI chat completions (copilot), OpenAI Responses (codex)
and Gemini streamGenerateContent (gemini), all as server-sent events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

USAGE_IN, USAGE_OUT = 120, 30


@dataclass
class Turn:
    """What one request says: all its text, the offered tool names, and the tool results so far."""

    text: str
    tools: dict[str, dict[str, Any]]  # name → its parameters' JSON schema ({} when it has none)
    results: list[str] = field(default_factory=list)
    model: str = "test-model"


@dataclass(frozen=True)
class ToolCall:
    """An answer that asks the CLI to run one of its tools."""

    name: str
    args: dict[str, Any]
    call_id: str = "call_1"
    freeform: bool = False  # a Responses "custom" tool: the input is a plain string (codex apply_patch)


class Wire(Protocol):
    """One API's request reading and answer encoding."""

    name: str
    stream: bool  # answers are server-sent events (else one JSON body)

    def read(self, body: dict[str, Any]) -> Turn: ...

    def text(self, text: str, model: str) -> Iterator[bytes]: ...

    def tool_call(self, call: ToolCall, model: str) -> Iterator[bytes]: ...

    def error(self, status: int) -> dict[str, Any]: ...


def _sse(data: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _texts(value: Any) -> list[str]:
    """Every string under `text`/`content`/`output` keys of a JSON value (any nesting)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    if isinstance(value, dict):
        keys = ("text", "content", "output", "input", "parts", "message")
        return [t for k in keys if k in value for t in _texts(value[k])]
    return []


_STATUS_TEXT = {
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
}


class Anthropic:
    """Anthropic Messages: `POST /v1/messages` (claude)."""

    name = "anthropic"
    stream = True

    def read(self, body: dict[str, Any]) -> Turn:
        texts, results = _texts(body.get("system")), []
        for message in body.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else [content]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results.append("\n".join(_texts(block.get("content"))))
                else:
                    texts += _texts(block)
        tools = {str(t.get("name")): t.get("input_schema") or {} for t in body.get("tools", [])}
        return Turn("\n".join(texts), tools, results, str(body.get("model", "test-model")))

    def _message(
        self, model: str, block: dict[str, Any], delta: dict[str, Any], stop: str
    ) -> Iterator[bytes]:
        start = {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [],
                 "stop_reason": None, "stop_sequence": None,
                 "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}  # fmt: skip
        yield _sse({"type": "message_start", "message": start}, "message_start")
        yield _sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start")
        yield _sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        end = {"stop_reason": stop, "stop_sequence": None}
        yield _sse(
            {"type": "message_delta", "delta": end, "usage": {"output_tokens": USAGE_OUT}}, "message_delta"
        )
        yield _sse({"type": "message_stop"}, "message_stop")

    def text(self, text: str, model: str) -> Iterator[bytes]:
        return self._message(
            model, {"type": "text", "text": ""}, {"type": "text_delta", "text": text}, "end_turn"
        )

    def tool_call(self, call: ToolCall, model: str) -> Iterator[bytes]:
        block = {"type": "tool_use", "id": f"toolu_{call.call_id}", "name": call.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call.args)}
        return self._message(model, block, delta, "tool_use")

    def error(self, status: int) -> dict[str, Any]:
        kind = _STATUS_TEXT.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": f"scripted {status} ({kind})"}}


class ChatCompletions:
    """OpenAI chat completions: `POST /v1/chat/completions` (copilot)."""

    name = "chat"
    stream = True

    def read(self, body: dict[str, Any]) -> Turn:
        texts, results = [], []
        for message in body.get("messages", []):
            said = "\n".join(_texts(message.get("content")))
            (results if message.get("role") == "tool" else texts).append(said)
        functions = [t.get("function", t) for t in body.get("tools", [])]
        tools = {str(f.get("name")): f.get("parameters") or {} for f in functions}
        return Turn("\n".join(texts), tools, results, str(body.get("model", "test-model")))

    def _chunks(self, model: str, delta: dict[str, Any], finish: str) -> Iterator[bytes]:
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        yield _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        yield _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        usage = {
            "prompt_tokens": USAGE_IN,
            "completion_tokens": USAGE_OUT,
            "total_tokens": USAGE_IN + USAGE_OUT,
        }
        yield _sse({**base, "choices": [], "usage": usage})
        yield b"data: [DONE]\n\n"

    def text(self, text: str, model: str) -> Iterator[bytes]:
        return self._chunks(model, {"role": "assistant", "content": text}, "stop")

    def tool_call(self, call: ToolCall, model: str) -> Iterator[bytes]:
        function = {"name": call.name, "arguments": json.dumps(call.args)}
        tool = {"index": 0, "id": call.call_id, "type": "function", "function": function}
        return self._chunks(model, {"role": "assistant", "content": None, "tool_calls": [tool]}, "tool_calls")

    def error(self, status: int) -> dict[str, Any]:
        return {
            "error": {
                "message": f"scripted {status}",
                "type": _STATUS_TEXT.get(status, "api_error"),
                "code": status,
            }
        }


class Responses:
    """OpenAI Responses: `POST /v1/responses` (codex)."""

    name = "responses"
    stream = True

    def read(self, body: dict[str, Any]) -> Turn:
        texts, results = _texts(body.get("instructions")), []
        for item in body.get("input", []):
            if not isinstance(item, dict):
                continue
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                results.append("\n".join(_texts(item.get("output"))))
            elif item.get("type") == "message":
                texts += _texts(item.get("content"))
        tools = {str(t.get("name", t.get("type"))): t.get("parameters") or t for t in body.get("tools", [])}
        return Turn("\n".join(texts), tools, results, str(body.get("model", "test-model")))

    def _response(self, model: str, item: dict[str, Any]) -> Iterator[bytes]:
        usage = {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": USAGE_IN + USAGE_OUT}  # fmt: skip
        response = {"id": "resp_1", "object": "response", "status": "completed", "model": model,
                    "output": [item], "usage": usage}  # fmt: skip
        created = {**response, "status": "in_progress", "output": []}
        yield _sse({"type": "response.created", "response": created}, "response.created")
        done = {"type": "response.output_item.done", "output_index": 0, "item": item}
        yield _sse(done, "response.output_item.done")
        yield _sse({"type": "response.completed", "response": response}, "response.completed")

    def text(self, text: str, model: str) -> Iterator[bytes]:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        item = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": content,
        }
        return self._response(model, item)

    def tool_call(self, call: ToolCall, model: str) -> Iterator[bytes]:
        if call.freeform:
            item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": call.call_id, "name": call.name,
                    "input": str(call.args["input"]), "status": "completed"}  # fmt: skip
        else:
            item = {"type": "function_call", "id": "fc_1", "call_id": call.call_id, "name": call.name,
                    "arguments": json.dumps(call.args), "status": "completed"}  # fmt: skip
        return self._response(model, item)

    def error(self, status: int) -> dict[str, Any]:
        return {
            "error": {
                "message": f"scripted {status}",
                "type": _STATUS_TEXT.get(status, "api_error"),
                "code": status,
            }
        }


class Gemini:
    """Gemini: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (gemini), and the plain
    JSON `:generateContent` it uses for side calls (e.g. choosing a model when none is given)."""

    name = "gemini"

    def __init__(self, stream: bool = True) -> None:
        self.stream = stream

    def read(self, body: dict[str, Any]) -> Turn:
        texts, results = _texts(body.get("systemInstruction")), []
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                if "functionResponse" in part:
                    response = part["functionResponse"].get("response")
                    results.append("\n".join(_texts(response)) or json.dumps(response))
                elif "text" in part:
                    texts.append(str(part["text"]))
        declared = [f for t in body.get("tools", []) for f in t.get("functionDeclarations", [])]
        tools = {
            str(f.get("name")): f.get("parametersJsonSchema") or f.get("parameters") or {} for f in declared
        }
        return Turn("\n".join(texts), tools, results)

    def _chunk(self, part: dict[str, Any]) -> Iterator[bytes]:
        candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        usage = {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                 "totalTokenCount": USAGE_IN + USAGE_OUT}  # fmt: skip
        data = {"candidates": [candidate], "usageMetadata": usage}
        yield _sse(data) if self.stream else json.dumps(data).encode()

    def text(self, text: str, model: str) -> Iterator[bytes]:
        return self._chunk({"text": text})

    def tool_call(self, call: ToolCall, model: str) -> Iterator[bytes]:
        return self._chunk({"functionCall": {"name": call.name, "args": call.args}})

    def error(self, status: int) -> dict[str, Any]:
        states = {401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}
        return {
            "error": {
                "code": status,
                "message": f"scripted {status}",
                "status": states.get(status, "UNKNOWN"),
            }
        }


def wire_for(method: str, path: str) -> Wire | None:
    """The protocol a request path belongs to (None for paths no model API uses)."""
    if method != "POST":
        return None
    if path.startswith("/v1/messages") and "count_tokens" not in path:
        return Anthropic()
    if "/chat/completions" in path:
        return ChatCompletions()
    if path.rstrip("/").endswith("/responses"):
        return Responses()
    if ":streamGenerateContent" in path or ":generateContent" in path:
        return Gemini(stream=":streamGenerateContent" in path)
    return None
