"""UTC time for state files, through a callable so tests can fix the clock."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """The current time in UTC (the default clock)."""
    return datetime.now(UTC)


def iso_seconds(moment: datetime) -> str:
    """ISO 8601 in UTC to the second: 2026-11-02T10:00:00Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
