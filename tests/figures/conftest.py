"""Fixtures for the figure tests."""

from __future__ import annotations

import pytest

from deepresearch.state.model import TaskDoc
from tests.figures.helpers import make_doc


@pytest.fixture
def doc() -> TaskDoc:
    """A task.md model with numeric facts (see figure_helpers.FACTS)."""
    return make_doc()
