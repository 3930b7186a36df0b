"""Interactive mode on a terminal: the question, clarifying questions, and review of the plan.

The plan review runs between planning and research (the orchestrator's plan hook). Until the person
approves, task.md keeps the plan in status `planning`: quitting (or Ctrl-C, or a kill) leaves it
there, and the next `deepresearch` in a terminal shows the plan again instead of starting research
on a plan nobody approved. (Without a terminal nobody can be asked: as with -p, a plan in status
planning is then used as it is.)
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager

from rich.console import Console

from deepresearch.core.errors import StateError, UsageError
from deepresearch.core.process import run_in_terminal
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.languages import apply_choice
from deepresearch.pipeline.plan import Answer, clarify, plan, question_tasks
from deepresearch.state.model import RunStatus
from deepresearch.state.questions import is_follow_up
from deepresearch.ui.tables import dimensions_table, languages_table, outline_table, plan_dag_table

CHOICES = {"a": "approve", "e": "edit", "l": "languages", "r": "revise", "q": "quit"}
MENU = (
    "Approve and start research (a), edit task.md (e), change the languages (l), revise with feedback (r), "
    "or quit (q)?"
)
LANGUAGES_PROMPT = "Languages to search (+de adds German, -fr removes French, 'en zh' sets exactly these): "
FALLBACK_EDITORS = ("sensible-editor", "nano", "vi")


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """The person's editor ($VISUAL, then $EDITOR, then a common one) as an argv prefix."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            return shlex.split(value)
    for name in FALLBACK_EDITORS:
        found = shutil.which(name)
        if found:
            return [found]
    raise UsageError("no editor found", hint="set $EDITOR (for example: export EDITOR=nano)")


class Interaction:
    """Asks on the terminal; `pause` hands the terminal over from the live display meanwhile."""

    def __init__(
        self,
        console: Console,
        environ: Mapping[str, str],
        pause: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self.console = console
        self.environ = environ
        self.pause = pause
        self.answers: list[Answer] = []
        self.feedback: list[str] = []
        self.languages: list[str] = []  # the person's language changes, kept when the planner revises

    def ask(self, prompt: str, on_eof: str = "") -> str:
        """One line from the terminal; Ctrl-D (end of input) answers `on_eof`."""
        try:
            return self.console.input(prompt).strip()
        except EOFError:
            self.console.print()
            return on_eof

    def ask_question(self) -> str:
        """The research question (interactive mode)."""
        text = self.ask("[bold]What should be researched?[/] ")
        if not text:
            raise UsageError(
                "the question is empty", hint='type a question, or use deepresearch -p "question"'
            )
        return text

    def clarify(self, ctx: RunContext) -> list[Answer]:
        """Run the planner in clarify mode and ask its questions; an empty answer skips one."""
        questions = clarify(ctx).questions
        if not questions:
            return []
        with self.pause():
            self.console.print(
                f"\n[bold]{len(questions)} question{'s' * (len(questions) > 1)} to make the research precise"
                "[/] (press Enter to skip one):"
            )
            for n, question in enumerate(questions, 1):
                answer = self.ask(f"[cyan]{n}/{len(questions)}[/] {question}\n> ")
                if answer:
                    self.answers.append(Answer(question, answer))
        return self.answers

    def review(self, ctx: RunContext) -> bool:
        """Show the plan and loop on approve / edit / revise / quit; True when approved."""
        while True:
            with self.pause():
                show_plan(self.console, ctx)
                choice = self._choose()
                if choice == "approve":
                    return True
                if choice == "quit":
                    self.console.print(
                        f"The plan is kept in {ctx.workspace.task_md} (status planning). "
                        "Run `deepresearch` in this folder again to review it, or add --yes to approve it."
                    )
                    return False
                if choice == "edit":
                    self.edit(ctx)
                    continue
                if choice == "languages":
                    self.change_languages(ctx)
                    continue
                feedback = self.ask("What should the planner change? ")
                if not feedback:
                    continue
                self.feedback.append(feedback)
            plan(ctx, self.answers, "\n".join(self.feedback))  # drawn live: the planner is at work
            if self.languages:
                apply_choice(ctx.doc, self.languages)  # the person's say outlasts the planner's revision
            ctx.doc.front.status = RunStatus.PLANNING  # the new plan awaits approval too
            ctx.save("plan-review")

    def change_languages(self, ctx: RunContext) -> None:
        """Ask for language changes and apply them to the plan (an empty answer changes nothing)."""
        while True:
            reply = self.ask(LANGUAGES_PROMPT)
            if not reply:
                return
            try:
                apply_choice(ctx.doc, [reply])
            except ValueError as exc:
                self.console.print(f"[bold red]{exc}[/]", highlight=False)
                continue
            self.languages.append(reply)
            ctx.save("plan-review")
            return

    def edit(self, ctx: RunContext) -> None:
        """Open task.md in the editor until it validates (or the edit is dropped), then adopt it."""
        while True:
            self._open_editor(ctx)
            try:
                ctx.store.load(previous=ctx.doc)
            except StateError as exc:
                self.console.print(f"[bold red]task.md does not validate:[/] {exc}", highlight=False)
                again = self.ask(
                    "Press Enter to fix it in the editor, or type 'undo' to drop your edit: ", "undo"
                )
                if again.lower() == "undo":
                    ctx.save("plan-review")  # task.md back as it was before the edit
                    return
                continue
            if ctx.refresh():
                self.console.print("Your edit of task.md is taken.")
            return

    def _open_editor(self, ctx: RunContext) -> None:
        argv = [*editor_command(self.environ), str(ctx.workspace.task_md)]
        try:
            run_in_terminal(argv)  # on the terminal, with our environment
        except OSError as exc:
            raise UsageError(f"could not start the editor {argv[0]}: {exc}", hint="check $EDITOR") from exc

    def _choose(self) -> str:
        while True:
            reply = self.ask(f"{MENU} ", on_eof="q").lower()
            if not reply:
                continue
            choice = CHOICES.get(reply[0])
            if choice is not None and choice.startswith(reply):
                return choice
            self.console.print(f"Please answer a, e, l, r or q (got {reply!r}).")


def show_plan(console: Console, ctx: RunContext) -> None:
    """The plan as tables: dimensions, outline and the research DAG."""
    doc = ctx.doc
    console.print(f"\n[bold]Research plan[/] for: {doc.front.question}")
    if doc.front.complexity:
        console.print(f"complexity: {doc.front.complexity}")
    console.print(dimensions_table(doc))
    if doc.front.languages:
        console.print(languages_table(doc))
    if doc.outline:
        console.print(outline_table(doc))
    console.print(plan_dag_table(doc))
    if is_follow_up(doc) and not question_tasks(doc):
        console.print("No new research: the report will be written from what the workspace knows.")
    console.print(f"(the plan is in {ctx.workspace.task_md})")
