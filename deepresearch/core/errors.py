"""Typed errors written for the user, and the exit codes the CLI maps them to.

Every error says what failed, where, and what to do. The CLI layer is the only place that turns
them into exit codes and messages; the core raises them and never prints.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes of `deepresearch` (documented in the README)."""

    OK = 0
    FAILURE = 1  # unexpected internal error (a bug): run with --debug and report it
    USAGE = 2  # bad command line or input (missing file, empty question)
    CONFIG = 3  # bad configuration file, environment value or input.md front matter
    STATE = 4  # task.md does not parse or validate
    AGENT = 5  # an agent CLI failed in a way retries could not fix
    NO_AGENT = 6  # no supported agent CLI is installed, or the chosen one is missing / not logged in
    LOCKED = 7  # another deepresearch run holds the workspace
    CHECK_FAILED = 8  # the report failed verification (report kept, with a Verification section)
    BUDGET = 9  # a budget ran out (e.g. `deepresearch search` at max_searches)
    ARCHIVE = 10  # `deepresearch archive` could not archive one or more URLs
    BATCH_INCOMPLETE = 11  # `deepresearch batch`: some jobs failed or were left (batch.json lists them)
    SERVICE = 12  # inside a run: its tool service is not answering (search needs it: it holds the keys)
    NETWORK = 13  # the network failed: no search provider could be reached, or none answered
    INTERRUPTED = 130  # Ctrl-C / SIGTERM: the workspace is resumable


class DeepResearchError(Exception):
    """Base of all errors meant for the user; carries an exit code and an optional hint."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  → {self.hint}"


class UsageError(DeepResearchError):
    """The command line or the request is unusable (missing file, empty question...)."""

    exit_code = ExitCode.USAGE


class ConfigError(DeepResearchError):
    """A configuration value is unknown or invalid; names the key and where it came from."""

    exit_code = ExitCode.CONFIG

    def __init__(self, key: str, source: str, problem: str, hint: str | None = None) -> None:
        super().__init__(f"{source}: {key}: {problem}", hint)
        self.key = key
        self.source = source


class StateError(DeepResearchError):
    """task.md (or another state file) failed to parse or validate; names the line."""

    exit_code = ExitCode.STATE

    def __init__(
        self, message: str, path: str = "task.md", line: int | None = None, hint: str | None = None
    ) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}", hint)
        self.path = path
        self.line = line
        self.detail = message


class AgentError(DeepResearchError):
    """An agent call failed for good (after retries, or a final failure such as not logged in)."""

    exit_code = ExitCode.AGENT


class NoAgentError(DeepResearchError):
    """No usable agent CLI: none installed, the chosen one missing, or not logged in."""

    exit_code = ExitCode.NO_AGENT


class WorkspaceLockedError(DeepResearchError):
    """Another live deepresearch process holds the workspace lock."""

    exit_code = ExitCode.LOCKED


class LockTimeoutError(DeepResearchError):
    """A shared file's lock was held elsewhere for longer than a lock may be waited for."""

    exit_code = ExitCode.LOCKED


class CheckFailedError(DeepResearchError):
    """The report did not pass verification; the report is kept with a Verification section."""

    exit_code = ExitCode.CHECK_FAILED


class BudgetExhaustedError(DeepResearchError):
    """A configured budget (searches, agent calls, cost, minutes) is spent."""

    exit_code = ExitCode.BUDGET


class ArchiveError(DeepResearchError):
    """One or more sources could not be archived (each failure is recorded in the registry)."""

    exit_code = ExitCode.ARCHIVE


class BatchIncompleteError(DeepResearchError):
    """Some jobs of a batch failed after their retries, or could not be read from the batch file."""

    exit_code = ExitCode.BATCH_INCOMPLETE


class ToolServiceError(DeepResearchError):
    """The run's tool service (search and archive for agents) cannot be started or reached."""

    exit_code = ExitCode.SERVICE


class NetworkError(DeepResearchError):
    """A service on the network could not be reached or did not answer (no connection, a name that
    does not resolve, every search provider failing); nothing was counted or kept."""

    exit_code = ExitCode.NETWORK


class Interrupted(DeepResearchError):
    """The run was stopped by Ctrl-C or a signal; the workspace is left resumable."""

    exit_code = ExitCode.INTERRUPTED
