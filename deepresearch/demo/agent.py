"""The scripted agent of `deepresearch demo`: a real agent CLI process (run through the custom
backend), playing every role from the demonstration's script (`scenario.yaml`) instead of a model.

    python -m deepresearch.demo.agent --site URL --prompt-file logs/prompts/E1.md --workdir DIR

Like a model it reads only its rendered prompt and the workspace, and writes its role's output file:
executors run the search and archive commands their prompt names (so the run's tool service
searches the demo site and archives its pages) and cite the IDs the archive printed; the other
roles find each scripted fact's ID and sources in task.md by its statement. It uses no model and no
network beyond the demo site on 127.0.0.1, and reports no tokens and no cost.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from deepresearch.core.process import run_captured
from deepresearch.demo.scripted_roles import (
    archive_command,
    batch_plan,
    briefs_output,
    clarify_output,
    dump,
    executor_document,
    header,
    plan_output,
    search_command,
    task_rows,
    verifier_output,
)

TOOL_TIMEOUT = 120.0
_PLACEHOLDERS = re.compile(r"(?:\{[a-z0-9-]+\})+")  # adjacent ones: the support of one claim
_FIGURE_PLACEHOLDER = re.compile(r"^\{figure:(\d+)\}$", re.M)
_FIGURE_LINE = re.compile(r"^- (Figure \d+): (.+?)(?: — .*)? \(data from ((?:\[S\d+\])+)\)$", re.M)


@cache
def script() -> dict[str, Any]:
    """The demonstration's script (scenario.yaml, shipped with the package)."""
    text = resources.files("deepresearch.demo").joinpath("scenario.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def page_url(site: str, page: str) -> str:
    """Where the demo site serves a page."""
    return f"{site.rstrip('/')}/{page}.html"


# --- reading task.md as a model would ----------------------------------------------------------


def _words(text: str) -> str:
    return " ".join(text.replace("\\|", "|").split()).rstrip(".").lower()


def fact_rows(workdir: Path) -> dict[str, tuple[str, list[str]]]:
    """Each scripted fact's key → (its ID in task.md, its sources), for the facts task.md holds."""
    rows = {_words(row[1]): row for row in task_rows(workdir, "Facts")}
    found = {}
    for task in script()["tasks"].values():
        for fact in task["facts"]:
            row = rows.get(_words(fact["statement"]))
            if row is not None:
                sources = [s.strip() for s in row[2].split(",") if s.strip() and s.strip() != "-"]
                found[fact["key"]] = (row[0], sources)
    return found


def cite(text: str, facts: dict[str, tuple[str, list[str]]]) -> str:
    """`{key}` → the fact's citations ([S01]); adjacent keys cite each source once ([S01][S04]); a
    key task.md lacks adds nothing."""

    def citation(match: re.Match[str]) -> str:
        keys = re.findall(r"[a-z0-9-]+", match.group(0))
        sources = dict.fromkeys(s for key in keys if key in facts for s in facts[key][1])
        return "".join(f"[{s}]" for s in sources)

    return _PLACEHOLDERS.sub(citation, text)


# --- the roles ---------------------------------------------------------------------------------


def reflector_output(workdir: Path, round_no: int) -> str:
    """The scripted assessment of this round, its conflicts naming task.md's fact IDs."""
    rounds = script()["reflector"]
    data = dict(rounds.get(round_no) or rounds[max(rounds)])
    facts = fact_rows(workdir)
    conflicts = []
    for conflict in data.pop("conflicts", None) or []:
        ids = [facts[key][0] for key in conflict["facts"] if key in facts]
        if len(ids) == len(conflict["facts"]):  # both sides are in task.md
            conflicts.append({**conflict, "facts": ids})
    return dump({**data, "conflicts": conflicts})


def charts_output(workdir: Path) -> str:
    """The scripted figures, each point naming the task.md fact that states its number."""
    facts = fact_rows(workdir)
    figures = []
    for figure in script()["charts"]:
        points = [{**p, "fact": facts[p["fact"]][0]} for p in figure["points"] if p["fact"] in facts]
        if len(points) == len(figure["points"]):
            figures.append({**figure, "points": points})
    body = yaml.safe_dump({"figures": figures}, allow_unicode=True, sort_keys=False)
    return f"# Charts\n\n```yaml\n{body}```\n"


def report_output(workdir: Path, prompt: str) -> str:
    """The scripted report, cited from task.md, referring to the figures its prompt lists."""
    figures = {label: (title, cites) for label, title, cites in _FIGURE_LINE.findall(prompt)}

    def figure(match: re.Match[str]) -> str:
        label = f"Figure {match.group(1)}"
        if label not in figures:
            return ""
        title, cites = figures[label]
        first, _, rest = title.partition(" ")
        if first[1:].islower():  # "Main reasons ..." reads "main reasons"; "NorBike trips" stays
            title = f"{first.lower()} {rest}".strip()
        return f"{label} charts {title} {cites}."

    text = _FIGURE_PLACEHOLDER.sub(figure, script()["report"])
    return re.sub(r"\n{3,}", "\n\n", cite(text, fact_rows(workdir)))


def write_role(role: str, task: str, prompt: str, workdir: Path, output: Path, site: str) -> None:
    """Write the output file of `role` (a planner's clarifying questions, when that is what it asks)."""
    if role == "executor":
        Executor(task, prompt, workdir, output, site).run()
        return
    if role == "planner":
        text = clarify_output({}) if output.name.startswith("clarify") else plan_output(script()["plan"])
    elif role == "supervisor":
        text = briefs_output(prompt)
    elif role == "verifier":
        text = verifier_output({}, prompt)
    elif role == "reflector":
        text = reflector_output(workdir, int(header(prompt, "Round") or 1))
    elif role == "analyst":
        text = cite(script()["analysis"], fact_rows(workdir))
    elif role == "charts":
        text = charts_output(workdir)
    elif role == "synthesizer":
        text = report_output(workdir, prompt)
    else:
        raise ValueError(f"the demonstration has no script for the role {role!r}")
    output.write_text(text, encoding="utf-8")


class Executor:
    """One executor call: its Top-K batches, each searched, archived and written out in turn."""

    def __init__(self, task: str, prompt: str, workdir: Path, output: Path, site: str) -> None:
        self.task, self.prompt, self.workdir, self.output, self.site = task, prompt, workdir, output, site
        self.spec: dict[str, Any] = script()["tasks"].get(task) or {"queries": [], "pages": [], "facts": []}
        self.plan = batch_plan(prompt)
        self.sources: list[dict[str, Any]] = []
        self.facts: list[dict[str, Any]] = []
        self.batches: list[dict[str, Any]] = []

    def run(self) -> None:
        """The call's first batch finds the task's pages unless task.md already holds their facts (an
        earlier call's, when a run resumes); later batches find nothing new, and the call stops by
        its prompt's stop rule."""
        known = fact_rows(self.workdir)
        found = all(fact["key"] in known for fact in self.spec["facts"])
        streak = 0
        for batch in range(self.plan["first"], self.plan["last"] + 1):
            new = batch == self.plan["first"] and not found
            self.batch(batch, new)
            streak = 0 if new else streak + 1
            if batch >= self.plan["min_batches"] and streak >= self.plan["threshold"]:
                break

    def batch(self, number: int, new: bool) -> None:
        queries = self.spec["queries"] if new else self.spec.get("again", [])
        searched = [q for q in queries if self.search(q, number)]
        archived = self.archive(self.spec["pages"], number) if new else {}
        added = []
        for fact in self.spec["facts"] if new else []:
            source = archived.get(fact["page"])
            if source is None:
                continue  # its page could not be archived: no fact without an archived source
            label = f"F{len(self.facts) + 1}"
            self.facts.append({
                "id": label, "statement": " ".join(fact["statement"].split()), "sources": [source],
                "quote": " ".join(fact["quote"].split()), "confidence": fact.get("confidence", "high"),
            })  # fmt: skip
            added.append(label)
        reason = (
            "first figures for the task's dimensions" if added else "only pages and figures already found"
        )
        self.batches.append({
            "batch": number, "queries": searched, "k": self.k, "sources": list(archived.values()),
            "facts": added, "new": bool(added), "reason": reason,
        })  # fmt: skip
        assessment = f"Batch {number}: {reason}."
        text = executor_document(self.task, self.sources, self.facts, {}, assessment, None, self.batches)
        self.output.write_text(text, encoding="utf-8")  # after every batch: a kill keeps what is done

    @property
    def k(self) -> int:
        found = search_command(self.prompt)
        return found[1] if found else 5

    def search(self, query: str, batch: int) -> bool:
        """Run the prompt's search command, as an agent would; whether the search was made."""
        found = search_command(self.prompt)
        if found is None:
            return False
        argv = [*found[0], "--batch", str(batch), "-k", str(found[1]), "--json", query]
        outcome = run_captured(argv, timeout=TOOL_TIMEOUT, cwd=self.workdir)
        sys.stderr.write(f"search {query!r}: exit {outcome.exit_code} {outcome.stderr.strip()[-300:]}\n")
        return outcome.exit_code == 0

    def archive(self, pages: list[str], batch: int) -> dict[str, str]:
        """Archive the pages with the prompt's archive command; page → the source ID it printed."""
        argv = archive_command(self.prompt)
        if argv is None or not pages:
            return {}
        urls = {page_url(self.site, page): page for page in pages}
        outcome = run_captured(
            [*argv, "--batch", str(batch), "--json", *urls], timeout=TOOL_TIMEOUT, cwd=self.workdir
        )
        sys.stderr.write(outcome.stderr)
        try:
            records = json.loads(outcome.stdout)
        except json.JSONDecodeError:
            return {}
        ids = {}
        known = {source["id"] for source in self.sources}
        for record in records if isinstance(records, list) else []:
            page = urls.get(record.get("url", ""))
            if page is None or record.get("status") != "archived":
                continue
            ids[page] = record["id"]
            if record["id"] not in known:
                known.add(record["id"])
                about = script()["pages"][page]
                self.sources.append({
                    "id": record["id"], "url": record["url"], "title": about["title"], "type": about["type"],
                    "published": record.get("published") or "",
                })  # fmt: skip
        return ids


def main(argv: list[str] | None = None) -> int:
    """Play the role the prompt names and print what a CLI prints: its final text, no usage."""
    parser = argparse.ArgumentParser(prog="deepresearch-demo-agent", description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, help="The demo site's base URL (http://127.0.0.1:PORT).")
    parser.add_argument("--prompt-file", required=True, type=Path)
    parser.add_argument("--workdir", required=True, type=Path)
    args = parser.parse_args(argv)
    prompt = args.prompt_file.read_text(encoding="utf-8")
    role, task = header(prompt, "Role"), header(prompt, "Task")
    output = args.workdir / header(prompt, "Output file")
    write_role(role, task, prompt, args.workdir, output, args.site)
    print(json.dumps({"text": f"wrote {output.name}", "input_tokens": 0, "output_tokens": 0, "cost_usd": 0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
