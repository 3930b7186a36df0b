"""Hypothesis strategies for valid task.md documents with hostile text in every cell."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from deepresearch.state import model as m
from deepresearch.state.schema import COVERAGE

# Pieces that have broken table writers before: pipes, escapes, line breaks, markup, wide characters.
HOSTILE = [
    "|", "\\", "\\|", "\\\\|", "\n", "<br>", "<BR/>", "<br />", "\\<br>", "-", ":", "---", ":-:",
    "| --- |", "`a|b`", "## Facts", "\\## Facts", "# x", "> q", "* ", "1. ", "```", "<div>", "&amp;",
    "中文", "한국어", "😀", "👩‍🔬", "\u200b", "\u00a0", "\t", "\u2028", "\x85", "\x0b", "S01", ",", "'", '"',
]  # fmt: skip
_CHARS = st.characters(exclude_categories=("Cs",), exclude_characters="\r")


def hostile_text(max_pieces: int = 8) -> st.SearchStrategy[str]:
    """Text mixing hostile pieces and random characters, stripped (the form task.md stores)."""
    piece = st.one_of(st.sampled_from(HOSTILE), st.text(_CHARS, max_size=12))
    return st.lists(piece, max_size=max_pieces).map(lambda parts: "".join(parts).strip())


def required_text() -> st.SearchStrategy[str]:
    return hostile_text().filter(bool)


def long_text() -> st.SearchStrategy[str]:
    """A very long quote: a hostile text repeated up to a few hundred times."""
    return st.tuples(required_text(), st.integers(1, 300)).map(lambda pair: " ".join([pair[0]] * pair[1]))


def verbatim_text() -> st.SearchStrategy[str]:
    """Request / Scratchpad text: lines of hostile text, without blank lines at either end."""
    line = st.one_of(
        hostile_text(4), st.sampled_from(["## Facts", "  ## research dag ##", "\\\\## Gaps", "---"])
    )
    return st.lists(line, max_size=6).map(lambda lines: normal_verbatim("\n".join(lines)))


def normal_verbatim(text: str) -> str:
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _some(ids: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(ids), unique=True, max_size=3) if ids else st.just([])


_settings = st.dictionaries(
    st.text(_CHARS, min_size=1, max_size=10),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(_CHARS, max_size=10),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(_CHARS, max_size=5), inner, max_size=3)
        ),
        max_leaves=5,
    ),
    max_size=4,
)


@st.composite
def front_matter(draw: st.DrawFn) -> m.FrontMatter:
    text = st.text(_CHARS, max_size=30)
    return m.FrontMatter(
        id=draw(st.text(_CHARS, min_size=1, max_size=20)),
        question=draw(st.one_of(required_text(), st.text(_CHARS, min_size=1))),
        status=draw(st.sampled_from(m.RunStatus)),
        round=draw(st.integers(0, 50)),
        mode=draw(st.sampled_from(m.Mode)),
        created=draw(text),
        updated=draw(text),
        agents=draw(st.dictionaries(st.text(_CHARS, min_size=1, max_size=10), text, max_size=3)),
        settings=draw(_settings),
        termination_reason=draw(text),
        complexity=draw(text),
        languages=[
            m.PlannedLanguage(code, draw(text).strip())
            for code in draw(
                st.lists(st.sampled_from(["en", "de", "zh", "no", "ja"]), max_size=3, unique=True)
            )
        ],
    )


@st.composite
def task_docs(draw: st.DrawFn) -> m.TaskDoc:
    """A valid TaskDoc: unique IDs, references that resolve, an acyclic DAG, facts with sources."""
    text, required = hostile_text(), required_text()
    dims = [
        m.Dimension(f"D{i + 1}", draw(required), draw(text), draw(st.sampled_from(COVERAGE)))
        for i in range(draw(st.integers(0, 4)))
    ]
    dim_ids = [d.id for d in dims]
    tasks: list[m.Task] = []
    for i in range(draw(st.integers(0, 6))):
        prefix = draw(st.sampled_from("EC"))
        depends = draw(_some([t.id for t in tasks]))  # only earlier tasks: never a cycle
        tasks.append(
            m.Task(
                f"{prefix}{i + 1}",
                draw(required),
                draw(_some(dim_ids)),
                draw(st.sampled_from(m.Priority)),
                depends,
                draw(st.sampled_from(m.TaskStatus)),
                draw(st.integers(0, 9)),
            )
        )
    sources = [_source(draw, i) for i in range(draw(st.integers(0, 4)))]
    facts: list[m.Fact] = []
    if sources:
        for i in range(draw(st.integers(0, 5))):
            facts.append(
                m.Fact(
                    m.format_fact_id(i + 1),
                    draw(required),
                    draw(
                        st.lists(
                            st.sampled_from([s.id for s in sources]), min_size=1, max_size=3, unique=True
                        )
                    ),
                    draw(st.sampled_from(m.Confidence)),
                    draw(st.one_of(text, long_text())),
                    draw(st.sampled_from(m.Verified)),
                    draw(st.sampled_from(["", *[t.id for t in tasks]])),
                    draw(st.sampled_from(m.Support)),
                )
            )
    fact_ids = [f.id for f in facts]
    return m.TaskDoc(
        front=draw(front_matter()),
        request=draw(verbatim_text()),
        dimensions=dims,
        outline=[
            m.OutlineSection(draw(required), draw(_some(dim_ids)), draw(text))
            for _ in range(draw(st.integers(0, 3)))
        ],
        tasks=tasks,
        facts=facts,
        sources=sources,
        conflicts=[
            m.Conflict(
                f"CONF-{i + 1}",
                draw(required),
                draw(_some(fact_ids)),
                draw(st.sampled_from(m.Severity)),
                draw(st.sampled_from(["", *fact_ids])),
                draw(text),
            )
            for i in range(draw(st.integers(0, 2)))
        ],
        quality=[_quality(draw, r) for r in range(draw(st.integers(0, 3)))],
        gaps=[
            m.Gap(f"G{i + 1}", draw(required), draw(st.integers(0, 9)), draw(st.sampled_from(m.GapStatus)))
            for i in range(draw(st.integers(0, 3)))
        ],
        scratchpad=draw(verbatim_text()),
    )


def _source(draw: st.DrawFn, index: int) -> m.Source:
    text = hostile_text()
    return m.Source(
        m.format_source_id(index + 1),
        draw(text),
        draw(required_text()),
        draw(text),
        draw(text),
        draw(text),
        draw(st.one_of(st.none(), st.floats(0, 1))),
        draw(text),
        draw(st.sampled_from(["", "0" * 64, "ab" * 32])),
        draw(st.sampled_from(["", "S01", "S02"])),
        draw(st.lists(st.sampled_from(["suspicious", "provided", "abstract-only"]), max_size=2, unique=True)),
        draw(st.sampled_from(["", "en", "de", "zh"])),
    )


def _quality(draw: st.DrawFn, round_: int) -> m.QualityRow:
    score: Any = st.floats(0, 10)
    maybe = st.one_of(st.none(), score)
    return m.QualityRow(
        round_ + 1,
        draw(score),
        draw(maybe),
        draw(maybe),
        draw(maybe),
        draw(maybe),
        draw(st.integers(0, 99)),
        draw(hostile_text()),
    )
