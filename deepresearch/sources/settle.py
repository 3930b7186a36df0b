"""When a loaded page has finished rendering: what the page does, checked often, not a fixed wait.

After `load`, a page may still be working: a script fetching data, a timer filling a dashboard, a
framework rendering on the next frame. `SETTLE_SCRIPT` is added to every page before its own
scripts run (browser.py) and keeps count, inside the page, of what is still to come: requests made
by `fetch` or `XMLHttpRequest` and not answered yet, and timers due within `TIMER_HORIZON_MS`
(`setTimeout`, and an interval until its first tick); it also notes the time of the page's last
activity (a DOM change, a request answered, a timer fired). `settle` polls that state and the
browser's own count of requests in flight every `POLL_SECONDS`, and returns once nothing is pending
and both have been quiet for `QUIET_SECONDS`: a static page settles about 0.05 s after `load`, a
page filled by a timer or a request as soon as its content has arrived. A page that never rests
(polling forever, animations) is taken as it is after `MAX_SETTLE_SECONDS`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

MAX_SETTLE_SECONDS = 2.0  # after "load": a page still busy by then is taken as it has rendered
# Nothing pending, no DOM change and no request for this long: settled. Every long wait (a request,
# a timer) is pending until it ends, so the window only spans the short steps between them (a
# response parsed, then rendered).
QUIET_SECONDS = 0.05
POLL_SECONDS = 0.02
TIMER_HORIZON_MS = 1000  # a timer due later than this is not waited for (ads, session refresh)

SETTLE_SCRIPT = """
(() => {
  if (window.__deepresearchSettle) return;
  const state = {pending: 0, last: performance.now()};
  const timers = new Set();
  const touch = () => { state.last = performance.now(); };
  const soon = (delay) => !(Number(delay) > HORIZON_MS);
  const [setT, clearT, setI, clearI] = [setTimeout, clearTimeout, setInterval, clearInterval];
  window.setTimeout = function (fn, delay, ...rest) {
    if (typeof fn !== 'function') return setT.call(window, fn, delay, ...rest);
    let id;
    id = setT.call(window, function () {
      const waited = timers.delete(id);
      try { return fn.apply(this, arguments); } finally { if (waited) touch(); }
    }, delay, ...rest);
    if (soon(delay)) timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return clearT.call(window, id); };
  window.setInterval = function (fn, delay, ...rest) {
    if (typeof fn !== 'function') return setI.call(window, fn, delay, ...rest);
    let id;
    id = setI.call(window, function () {
      const waited = timers.delete(id);
      try { return fn.apply(this, arguments); } finally { if (waited) touch(); }
    }, delay, ...rest);
    if (soon(delay)) timers.add(id);
    return id;
  };
  window.clearInterval = function (id) { timers.delete(id); return clearI.call(window, id); };
  const done = () => { state.pending--; touch(); };
  if (window.fetch) {
    const fetch = window.fetch;
    window.fetch = function (...args) {
      state.pending++; touch();
      let answer;
      try { answer = fetch.apply(this, args); } catch (e) { done(); throw e; }
      answer.then(done, done);
      return answer;
    };
  }
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      state.pending++; touch();
      this.addEventListener('loadend', done, {once: true});
      try { return send.apply(this, args); } catch (e) { done(); throw e; }
    };
  }
  new MutationObserver(touch).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
  Object.defineProperty(window, '__deepresearchSettle', {
    value: () => ({pending: state.pending + timers.size, quiet: (performance.now() - state.last) / 1000}),
  });
})();
""".replace("HORIZON_MS", str(TIMER_HORIZON_MS))

# What `settle` evaluates: the page's state, or null when the script is not in this document.
PROBE = "() => window.__deepresearchSettle ? window.__deepresearchSettle() : null"


@dataclass(frozen=True)
class PageState:
    """What the page still waits for (requests and timers) and how long it has been quiet (s)."""

    pending: int
    quiet: float


BUSY = PageState(pending=1, quiet=0.0)


class NetworkQuiet:
    """Requests in flight as the browser reports them, and when that last changed (the loop's clock)."""

    def __init__(self) -> None:
        self.inflight = 0
        self.changed = 0.0

    def started(self, _: object = None) -> None:
        """A request was sent."""
        self.inflight += 1
        self.changed = _now()

    def ended(self, _: object = None) -> None:
        """A request finished or failed."""
        self.inflight = max(self.inflight - 1, 0)
        self.changed = _now()

    def quiet_for(self) -> float:
        """Seconds since a request was last sent or finished (infinite while none is known)."""
        return _now() - self.changed if self.changed else float("inf")


def _now() -> float:
    return asyncio.get_running_loop().time()


async def settle(probe: Callable[[], Awaitable[PageState | None]], network: NetworkQuiet) -> float:
    """Wait until the page rests (module docstring); the seconds it took. `probe` returns the page's
    state, or None when the page does not run the script (then the network alone decides); while a
    script replaces the document it answers BUSY, and the new document is waited for."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while True:
        state = await probe()
        page_quiet = state is None or (state.pending == 0 and state.quiet >= QUIET_SECONDS)
        if page_quiet and network.inflight == 0 and network.quiet_for() >= QUIET_SECONDS:
            return loop.time() - start
        if loop.time() - start >= MAX_SETTLE_SECONDS:
            return loop.time() - start
        await asyncio.sleep(POLL_SECONDS)
