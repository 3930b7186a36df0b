"""The workspace layout (docs/architecture.md: The workspace): every path a run reads or writes, in
one place.

What code trusts — task.md, the archives, the search log, the tool log, the usage ledger, the
prompts — is written only by the orchestrator or the run's tool service. An agent call may write
only its own folder, `logs/calls/<label>/` (its output file), which the OS sandbox and each CLI's
rules enforce; the locks live in `.deepresearch/locks/`, which no agent can see."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ASSET_KINDS = ("web", "pdf", "images", "transcripts", "ebook", "audio")


@dataclass(frozen=True)
class Workspace:
    """Paths of one run folder. Creating the object touches nothing; `ensure()` makes the folders."""

    root: Path

    @property
    def task_md(self) -> Path:
        return self.root / "task.md"

    @property
    def report_md(self) -> Path:
        return self.root / "report.md"

    @property
    def report_html(self) -> Path:
        return self.root / "report.html"

    @property
    def knowledge_json(self) -> Path:
        return self.root / "knowledge.json"

    @property
    def input_md(self) -> Path:
        return self.root / "input.md"

    @property
    def assets(self) -> Path:
        return self.root / "assets"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def prompts(self) -> Path:
        return self.logs / "prompts"

    @property
    def briefs(self) -> Path:
        return self.logs / "briefs"

    @property
    def events_jsonl(self) -> Path:
        return self.logs / "events.jsonl"

    @property
    def orchestrator_log(self) -> Path:
        return self.logs / "orchestrator.log"

    @property
    def search_log(self) -> Path:
        return self.logs / "search_results.jsonl"

    @property
    def calls(self) -> Path:
        """logs/calls/: one folder per agent call, the only place agents may write."""
        return self.logs / "calls"

    @property
    def private(self) -> Path:
        """.deepresearch/: lock, snapshots, source registry, caches, usage ledger."""
        return self.root / ".deepresearch"

    @property
    def lock_file(self) -> Path:
        return self.private / "lock"

    @property
    def locks(self) -> Path:
        """.deepresearch/locks/: the lock files of the run's shared files (hidden from agents)."""
        return self.private / "locks"

    @property
    def snapshots(self) -> Path:
        return self.private / "snapshots"

    @property
    def source_registry(self) -> Path:
        """The source registry (SQLite; sources/registry.py), IDs allocated under `sources.lock`.
        A workspace made before it holds `sources.jsonl`, migrated on first open."""
        return self.private / "sources.db"

    @property
    def source_registry_lock(self) -> Path:
        """The lock IDs are allocated under (the orchestrator holds it through a merge into task.md),
        in locks/, where no agent can hold it."""
        return self.locks / "sources.lock"

    @property
    def legacy_source_registry(self) -> tuple[Path, Path]:
        """What a workspace made before the SQLite registry holds: sources.jsonl, sketches.jsonl."""
        return self.private / "sources.jsonl", self.private / "sketches.jsonl"

    @property
    def batch_ledger(self) -> Path:
        """Each executor task's calls and merged batches (JSON lines), for resuming a task."""
        return self.private / "batches.jsonl"

    @property
    def usage_ledger(self) -> Path:
        return self.private / "usage.jsonl"

    @property
    def elapsed_time(self) -> Path:
        """The minutes the run's sessions have taken so far ({"minutes": M}), for max_minutes."""
        return self.private / "elapsed.json"

    @property
    def tool_socket(self) -> Path:
        """The run's tool service (search and archive for its agents): a Unix socket, mode 0600."""
        return self.private / "tools.sock"

    @property
    def tools_log(self) -> Path:
        """logs/tools.jsonl: one line per search or archive the tool service performed, by task."""
        return self.logs / "tools.jsonl"

    @property
    def browser_profile(self) -> Path:
        return self.private / "browser-profile"

    @property
    def spent_by_questions(self) -> Path:
        """.deepresearch/questions/: each earlier question's usage ledger and search counter, by ID."""
        return self.private / "questions"

    @property
    def support_verdicts(self) -> Path:
        """The verifier's verdicts on report sentences, by sentence hash (JSON)."""
        return self.private / "support.json"

    @property
    def gemini_private(self) -> Path:
        """gemini's per-call policy folders (`policies/<label>/`) and, with a custom endpoint, its home."""
        return self.private / "gemini"

    @property
    def opencode_private(self) -> Path:
        """opencode's per-call folders (`<label>/`): its config (our rules) and its data, cache, state."""
        return self.private / "opencode"

    @property
    def qwen_private(self) -> Path:
        """Qwen Code's per-call homes (`<label>/`): its settings (our rules) and its sessions and logs."""
        return self.private / "qwen"

    def asset_dir(self, kind: str) -> Path:
        """assets/<kind>/ for one of ASSET_KINDS."""
        if kind not in ASSET_KINDS:
            raise ValueError(f"unknown asset kind {kind!r}")
        return self.assets / kind

    def log_file(self, label: str) -> Path:
        """logs/<label>.log: an agent's stdout and stderr."""
        return self.logs / f"{label}.log"

    def call_dir(self, label: str) -> Path:
        """logs/calls/<label>/: the one folder an agent call may write in."""
        return self.calls / label

    def result_file(self, label: str) -> Path:
        """logs/calls/<label>/<label>_result.md: the one file an agent writes."""
        return self.call_dir(label) / f"{label}_result.md"

    def relative(self, path: Path) -> str:
        """`path` relative to the workspace, with forward slashes (as written in task.md)."""
        return path.resolve().relative_to(self.root.resolve()).as_posix()

    def has_run(self) -> bool:
        """A run folder: its task.md exists (what `check`, `status` and `doctor` all look for)."""
        return self.task_md.is_file()

    def in_use(self) -> bool:
        """Whether deepresearch keeps anything here: a run, or the private folder that `archive` and
        `search` run by hand keep their registry, cache and budget in."""
        return self.has_run() or self.private.is_dir()

    def no_run(self) -> tuple[str, str]:
        """(why, what to do) when this folder holds no run: what `check` and `status` both say."""
        if self.events_jsonl.is_file():
            return (
                f"no run saved in {self.root}: a run started here but stopped before its plan was "
                "saved (no task.md); nothing was researched",
                "run the same deepresearch command again to start it over",
            )
        if self.private.is_dir():
            return (
                f"no run in {self.root}: only sources archived by hand (no task.md)",
                f'start a run here: deepresearch -o {self.root} -p "your question"',
            )
        return f"no run in {self.root} (no task.md)", "pass the folder of a run (deepresearch -o DIR made it)"

    def ensure(self) -> None:
        """Create the workspace folders (idempotent)."""
        for folder in (self.logs, self.prompts, self.briefs, self.private, self.snapshots):
            folder.mkdir(parents=True, exist_ok=True)
        for kind in ASSET_KINDS:
            self.asset_dir(kind).mkdir(parents=True, exist_ok=True)
