"""The batch file: JSONL, CSV and text, each bad line reported by number while the others stay jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.batch.jobs import generated_id, read_batch_file
from deepresearch.core.errors import UsageError


def test_jsonl_keeps_ids_settings_and_reports_bad_lines_by_number(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": 7, "topic": "Energy", "language": "en", "prompt": "Heat pumps in the EU?"}\n'
        "\n"
        '{"id": "x y", "prompt": "Bad id"}\n'
        '["not", "an", "object"]\n'
        '{"id": "e", "question": "Effort?", "effort": "deep", "max_rounds": 2}\n'
        '{"id": "f", "prompt": "Bad effort", "effort": "huge"}\n'
        '{"id": "7", "prompt": "Same id again"}\n'
        '{"id": "g", "prompt": "   "}\n'
        '{"id": "h", "prompt": "Batch-only key", "custom_command": ["x"]}\n'
        '{"id": "i", "prompt": "Unknown key", "colour": "red"}\n',
        encoding="utf-8",
    )
    batch = read_batch_file(path)
    assert [(j.id, j.input_id, j.line) for j in batch.jobs] == [("7", 7, 1), ("e", "e", 5)]
    assert batch.jobs[0].settings == {"language": "en"}  # `topic` is information, not a setting
    assert batch.jobs[1].settings == {"effort": "deep", "max_rounds": 2}
    problems = {p.line: p.message for p in batch.problems}
    assert sorted(problems) == [3, 4, 6, 7, 8, 9, 10]
    assert "cannot be a folder name" in problems[3]
    assert "expected a JSON object" in problems[4]
    assert problems[6] == "effort: must be one of quick, standard, deep, got 'huge'"
    assert problems[7] == "id '7' was already used on line 1"
    assert "no question" in problems[8]
    assert "DIR/deepresearch.yaml" in problems[9]
    assert problems[10].startswith("colour: unknown setting")


def test_csv_rows_are_numbered_by_their_physical_line(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text(
        'id,prompt,effort,max_rounds\na,"A question, with a comma",quick,2\n'
        'b,"A question\nover two lines",,\nc,Third,standard,zero\n',
        encoding="utf-8",
    )
    batch = read_batch_file(path)
    assert [(j.id, j.prompt, j.settings) for j in batch.jobs] == [
        ("a", "A question, with a comma", {"effort": "quick", "max_rounds": 2}),
        ("b", "A question\nover two lines", {}),
    ]
    assert [(p.line, p.message) for p in batch.problems] == [
        (5, "max_rounds: expected a whole number, got 'zero'")
    ]


def test_text_files_get_stable_generated_ids(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("# a watch list\nHow did EU heat-pump sales change?\n\nWhat is Ray?\n", encoding="utf-8")
    batch = read_batch_file(path)
    assert [j.line for j in batch.jobs] == [2, 4]
    first = batch.jobs[0].id
    assert first.startswith("how-did-eu-heat-pump-sales-change-") and first == generated_id(
        batch.jobs[0].prompt
    )
    path.write_text("What is Ray?\nHow did EU heat-pump sales change?\n", encoding="utf-8")
    assert read_batch_file(path).jobs[1].id == first  # moving a line does not rename its workspace


def test_a_missing_or_empty_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such batch file"):
        read_batch_file(tmp_path / "nope.jsonl")
    (tmp_path / "empty.txt").write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(UsageError, match="holds no question"):
        read_batch_file(tmp_path / "empty.txt")
