"""Evidence for merged findings: archive what executors cited, map to registry IDs, verify quotes."""

from __future__ import annotations

from deepresearch.contracts.execute import ExecutorOutput
from deepresearch.pipeline.context import RunContext
from deepresearch.state.model import Fact, Source


def resolve_evidence(ctx: RunContext, output: ExecutorOutput) -> tuple[list[Source], list[Fact]]:
    """Sources and facts ready to merge (placeholder until the archive layer lands)."""
    return output.sources, output.facts
