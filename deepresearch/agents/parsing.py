"""What every backend's `parse` shares: timeouts, JSON in CLI output, and messages for the user.

Each CLI prints its result differently (one JSON object, JSON lines, JSON on stderr), but the
decisions around it are the same: a timeout or Ctrl-C wins over whatever was printed, an HTTP
status decides the failure class when the CLI reports one, and every failure message says which
CLI failed and what to do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from deepresearch.agents.base import (
    AgentResult,
    FailureKind,
    ProcessOutcome,
    classify_http_status,
    classify_text,
    tail,
)

# "401 Unauthorized", "status: 429", "HTTP 500": an HTTP error status inside a CLI's message.
_STATUS_IN_TEXT = re.compile(
    r"(?:status(?: code)?[:= ]*|HTTP[/ ]?(?:\d(?:\.\d)?\s+)?|API Error:\s*)\b([45]\d\d)\b"
    r"|\b([45]\d\d)\s+(?:Unauthorized|Forbidden|Too Many Requests|Internal Server Error|Bad Gateway|"
    r"Service Unavailable|Gateway Timeout)",
    re.I,
)


def interrupted_or_timed_out(name: str, outcome: ProcessOutcome) -> AgentResult | None:
    """TIMEOUT / INTERRUPTED when the runner stopped the CLI, whatever it printed; else None."""
    if outcome.interrupted:
        return AgentResult.failed(FailureKind.INTERRUPTED, f"{name} was stopped by an interrupt")
    if outcome.timed_out:
        return AgentResult.failed(
            FailureKind.TIMEOUT, f"{name} did not finish in time ({outcome.duration:.0f}s) and was stopped"
        )
    return None


def json_object(text: str) -> dict[str, object] | None:
    """The last JSON object in `text` that starts at the beginning of a line (CLIs print warnings
    and stack traces around it); trailing text after the object is ignored."""
    decoder = json.JSONDecoder()
    offset, starts = 0, []
    for line in text.splitlines(keepends=True):
        if line.startswith("{"):
            starts.append(offset)
        offset += len(line)
    for start in reversed(starts):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def json_lines(text: str) -> list[dict[str, object]]:
    """Every line of `text` that is a JSON object (JSONL event streams); other lines are skipped."""
    events: list[dict[str, object]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def mapping(value: object) -> Mapping[str, object]:
    """`value` when it is a JSON object, else an empty one (for safe nested lookups)."""
    return value if isinstance(value, Mapping) else {}


def as_int(value: object) -> int | None:
    """A token count from JSON: ints (not bools) and integral floats; anything else is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def as_float(value: object) -> float | None:
    """A cost from JSON: any number (not bools); anything else is None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def as_str(value: object) -> str | None:
    """A non-empty string from JSON, else None."""
    return value if isinstance(value, str) and value else None


def sum_counts(values: Iterable[int | None]) -> int | None:
    """The sum of the counts that were reported; None when none was."""
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def status_in_text(text: str) -> int | None:
    """The first HTTP error status a CLI mentions in `text` ("401 Unauthorized", "status 429")."""
    match = _STATUS_IN_TEXT.search(text)
    if not match:
        return None
    return int(match.group(1) or match.group(2))


def failure_message(
    name: str, login_hint: str, kind: FailureKind, status: int | None = None, detail: str = ""
) -> str:
    """The user-facing message of a failure: which CLI, what happened, what to do."""
    http = f" (HTTP {status})" if status else ""
    detail = tail(detail, 3)
    if kind is FailureKind.NOT_LOGGED_IN:
        return f"{name} is not logged in{http}: {login_hint}"
    if kind is FailureKind.RATE_LIMITED:
        return f"{name}: rate limited by the API{http}"
    if kind is FailureKind.OVERLOADED:
        return f"{name}: the API is overloaded or failing{http}"
    if kind is FailureKind.NETWORK:
        return f"{name}: could not reach the API: {detail or 'network error'}"
    if kind is FailureKind.BAD_ARGUMENTS:
        return f"{name} rejected its arguments{http}: {detail or 'no detail printed'}"
    if kind is FailureKind.NOT_INSTALLED:
        return f"{name} could not be started: {detail or 'command not found'}"
    if kind is FailureKind.BAD_OUTPUT:
        return f"{name} finished but its output could not be read: {detail or '(no output)'}"
    if kind is FailureKind.CONTEXT_TOO_LONG:
        return (
            f"{name}: the prompt does not fit the model's context window{http}: use a model with a "
            "larger context (for Ollama, raise num_ctx or OLLAMA_CONTEXT_LENGTH)"
        )
    return f"{name} failed: {detail or '(nothing on stderr)'}"


def crash_or_cause(
    name: str, login_hint: str, outcome: ProcessOutcome, text: str, status: int | None = None
) -> AgentResult:
    """A non-zero exit: the class named by `status` (or an HTTP status mentioned in `text`), else
    by phrases in `text`, else CRASHED (exit 127 with no cause: the program was not found)."""
    status = status if status is not None else status_in_text(text)
    kind = classify_http_status(status) or classify_text(text)
    if kind is FailureKind.BAD_ARGUMENTS and classify_text(text) is FailureKind.CONTEXT_TOO_LONG:
        kind = FailureKind.CONTEXT_TOO_LONG  # a 400 that says why: the prompt is too long
    if kind is FailureKind.CRASHED and outcome.exit_code == 127:
        kind = FailureKind.NOT_INSTALLED
    detail = text
    if kind is FailureKind.CRASHED:
        detail = f"exit code {outcome.exit_code}: {tail(text, 3) or '(nothing on stderr)'}"
    return AgentResult.failed(kind, failure_message(name, login_hint, kind, status, detail))


def bad_output(name: str, login_hint: str, stdout: str) -> AgentResult:
    """Exit 0, but nothing usable on stdout."""
    shown = tail(stdout, 2)[:300]
    return AgentResult.failed(
        FailureKind.BAD_OUTPUT, failure_message(name, login_hint, FailureKind.BAD_OUTPUT, detail=shown)
    )
