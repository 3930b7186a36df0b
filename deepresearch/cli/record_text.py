"""A source record as a person reads it: what `deepresearch archive` prints for each URL."""

from __future__ import annotations

from deepresearch.sources.record import SourceRecord


def describe(record: SourceRecord) -> str:
    """A record as a few readable lines: ID, title, URL, facts about it, and its files."""
    if not record.ok:
        return f"FAILED {record.url}\n  {record.error}: {record.message}"
    lines = [f"{record.id}  {record.title}", f"  url:       {record.final_url}"]
    if record.url != record.final_url:
        lines.append(f"  requested: {record.url}")
    lines.append(
        f"  {record.status} {record.kind} (HTTP {record.http_status}, {record.content_type}) · "
        f"type: {record.source_type} · published: {record.published or 'unknown'} · "
        f"fetched: {record.fetched} · weight: {record.weight}"
        + (f" · language: {record.language}" if record.language else "")
    )
    lines += _metadata_lines(record)
    lines.append(f"  text:      {record.archive}")
    for label, path in (
        ("html", record.html_path),
        ("pdf", record.pdf_path),
        ("image", record.screenshot_path),
    ):
        if path:
            lines.append(f"  {label + ':':10} {path}")
    lines.append(f"  sha256:    {record.sha256}")
    if record.flags:
        lines.append(f"  flags:     {', '.join(record.flags)}")
    if record.warning:
        lines.append(f"  warning:   {record.warning}")
    return "\n".join(lines)


def _metadata_lines(record: SourceRecord) -> list[str]:
    """What a specialist source adds: authors or channel, venue, DOI, positions, abstract only."""
    label = "channel:" if record.kind == "transcript" else "authors:"
    rows = [
        (label, "; ".join(record.authors)),
        ("venue:", record.venue),
        ("doi:", record.doi),
        ("arxiv:", record.arxiv_id),
        ("captions:", f"{record.captions} ({record.language})" if record.captions else ""),
        ("positions:", record.positions),
        ("note:", "abstract only (no open-access PDF)" if record.abstract_only else ""),
        ("provided:", "yes" if record.provided else ""),
    ]
    return [f"  {name:10} {value}" for name, value in rows if value]
