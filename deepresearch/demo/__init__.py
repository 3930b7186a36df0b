"""`deepresearch demo`: a complete run with no agent CLI and no network — a scripted agent and a
small bundled site (pages and a search endpoint served on 127.0.0.1 for the run)."""
