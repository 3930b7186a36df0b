"""Displays of a run's events: rich live view (terminal), plain lines (not a terminal), null (tests)."""
