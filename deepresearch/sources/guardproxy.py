"""The forward proxy Chromium makes every request through while archiving, so that each one — the
page, its scripts, images and frames, every redirect, a service worker's — is checked against the
host policy (sources/netguard.py) before it leaves the machine.

Playwright's request routing cannot do this: it is not called for the hops of a redirect, so a
public page that answers `302 Location: http://127.0.0.1:PORT/` would be followed unchecked. A
proxy sees each hop as a request of its own. It also connects to the very addresses it checked, so a
name cannot resolve to a public address for the check and to a private one for the connection.

It listens on 127.0.0.1 (a random port) on the browser's event loop: HTTPS arrives as `CONNECT
host:port` and is tunnelled without being read; plain HTTP arrives as `GET http://host/...` and is
forwarded with `Connection: close`, one request per connection (the next request, perhaps for
another host, comes on a new connection and is checked again). A refused request gets
`403 Forbidden`, a host that does not resolve or answer `502 Bad Gateway`, each with what happened in
the `X-Deepresearch-Proxy` header (`blocked: reason`, `dns: ...`, `connection: ...`); it is kept by host
too, for a CONNECT, which Chromium reports only as a failed tunnel.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from deepresearch.sources.netguard import HostPolicy
from deepresearch.sources.record import BLOCKED, CONNECTION, DNS

PROXY_HEADER = "X-Deepresearch-Proxy"  # `kind: what happened`, on the proxy's own answers
HEAD_LIMIT = 64 * 1024
HEAD_TIMEOUT = 30.0
CHUNK = 64 * 1024
_HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


class GuardProxy:
    """The checking proxy of one browser (see the module docstring)."""

    def __init__(self, policy: HostPolicy, connect_timeout: float = 30.0) -> None:
        self.policy = policy
        self.connect_timeout = connect_timeout
        self.failures: dict[str, tuple[str, str]] = {}  # "host:port" → (failure kind, what happened)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        """Listen; the proxy's URL for Chromium's `--proxy-server`."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        """Stop listening and drop every connection still open."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def failure_for(self, url: str) -> tuple[str, str] | None:
        """(failure kind, what happened) when the proxy refused or could not reach `url`'s host."""
        parts = urlsplit(url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return None
        return self.failures.get(f"{(parts.hostname or '').lower()}:{port}")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
            await self._forward(head, reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            pass  # a connection that went away or sent nothing readable: nothing to forward
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(OSError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _forward(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            port, first = int(port_text), b""
        else:
            parts = urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                raise ValueError(f"not a proxy request: {line!r}")
            host, port = parts.hostname, parts.port or 80
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            first = _origin_request(method, path, version, rest)
        upstream = await self._connect(host, port, writer)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        try:
            if first:
                up_writer.write(first)
            else:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            up_writer.close()

    async def _connect(
        self, host: str, port: int, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A connection to one of `host`'s checked addresses; None after answering a refusal."""
        reason, addresses = await asyncio.to_thread(self.policy.addresses, host, port)
        if reason is not None:
            await self._fail(writer, host, port, BLOCKED, reason)
            return None
        if not addresses:
            await self._fail(writer, host, port, DNS, f"cannot resolve the host {host}")
            return None
        failure = ""
        for address in addresses:
            try:
                return await asyncio.wait_for(asyncio.open_connection(address, port), self.connect_timeout)
            except (OSError, TimeoutError) as exc:
                failure = str(exc) or type(exc).__name__
        await self._fail(writer, host, port, CONNECTION, f"cannot connect to {host}:{port} ({failure})")
        return None

    async def _fail(self, writer: asyncio.StreamWriter, host: str, port: int, kind: str, said: str) -> None:
        """Answer for a host refused or unreachable, and keep what happened for `failure_for`."""
        self.failures[f"{host.strip('[]').lower()}:{port}"] = (kind, said)
        status = b"403 Forbidden" if kind == BLOCKED else b"502 Bad Gateway"
        body = said.encode("utf-8")
        header = f"{kind}: {said}".encode("ascii", "replace").replace(b"\r", b" ").replace(b"\n", b" ")
        head = b"HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\n%s: %s\r\n" % (
            status,
            PROXY_HEADER.encode(),
            header,
        )
        writer.write(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        await writer.drain()


def _origin_request(method: str, path: str, version: str, rest: bytes) -> bytes:
    """The request head as the origin server expects it: its path, no proxy headers, one request."""
    kept = [h for h in rest.split(b"\r\n") if h and h.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS]
    lines = [f"{method} {path} {version}".encode("latin-1"), *kept, b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until the reader ends, then end the writer's side."""
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
