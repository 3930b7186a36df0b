"""The run's tool service: the one place that searches and archives while a run is going.

The orchestrator starts one `ToolService` per run (`server.py`), listening on a Unix socket in
`.deepresearch/` (mode 0600). It owns what agents must not hold: the search providers' API keys,
one Chromium for the whole run (pages pooled across every executor, per-host limits), the search
budget and the source registry's lock. `deepresearch search` and `deepresearch archive` run inside
agents are thin clients of it (`client.py`), found through `DEEPRESEARCH_SERVICE`; run by hand,
with no service, they do the work themselves. `protocol.py` is what crosses the socket.
"""
