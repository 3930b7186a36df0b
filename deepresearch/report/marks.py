"""How report.html shows the verifier's verdict on each cited sentence: a mark per citation.

Each citation bracket of a claim is wrapped in `<span class="claim claim-STATE" title="...">`, and
the claim's last citation is followed by a small sign (✓ supported, ◐ partial, ✗ unsupported,
? not checked); hovering shows the verdict and the verifier's reason. Claims are found as the check
finds them (claims.py), so report.md and report.html agree: a table row is one unit, as in checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from deepresearch.evidence.support import SupportRecord, Verdict, claim_key
from deepresearch.report.blocks import blank_code_spans
from deepresearch.report.citations import BRACKET_RE
from deepresearch.report.sentences import sentence_spans
from deepresearch.state.model import Support

SIGNS = {Support.SUPPORTED: "✓", Support.PARTIAL: "◐", Support.UNSUPPORTED: "✗", Support.UNCHECKED: "?"}
_WORDS = {
    Support.SUPPORTED: "Claim supported by the cited facts",
    Support.PARTIAL: "Claim partly supported by the cited facts",
    Support.UNSUPPORTED: "Claim not supported by the cited facts",
    Support.UNCHECKED: "Support not checked",
}


@dataclass(frozen=True)
class Mark:
    """The verdict shown on one citation bracket."""

    verdict: Verdict
    last: bool  # the claim's last citation: its sign follows

    @property
    def title(self) -> str:
        """The hover text: the verdict in words and the verifier's reason."""
        words = _WORDS[self.verdict.support]
        return f"{words}: {self.verdict.reason}" if self.verdict.reason else words

    def open_html(self) -> str:
        """The span that starts before the bracket."""
        state = self.verdict.support.value
        return f'<span class="claim claim-{state}" title="{escape(self.title, quote=True)}">'

    def close_html(self) -> str:
        """The sign (after the claim's last bracket) and the end of the span."""
        sign = f'<sup class="support">{SIGNS[self.verdict.support]}</sup>' if self.last else ""
        return f"{sign}</span>"


def bracket_marks(text: str, record: SupportRecord) -> list[Mark]:
    """One mark per citation bracket in `text` (a paragraph, list item or table row), in order."""
    text = blank_code_spans(text)
    spans = sentence_spans(text)
    brackets = list(BRACKET_RE.finditer(text))
    sentence_of = [next((n for n, (a, b) in enumerate(spans) if a <= m.start() < b), -1) for m in brackets]
    marks = []
    for i, sentence in enumerate(sentence_of):
        if sentence < 0:
            verdict = Verdict(Support.UNCHECKED)
        else:
            a, b = spans[sentence]
            key = claim_key(" ".join(text[a:b].split()))
            verdict = record.verdicts.get(key, Verdict(Support.UNCHECKED))
        last = i + 1 == len(brackets) or sentence_of[i + 1] != sentence
        marks.append(Mark(verdict, last))
    return marks
