"""uvicorn's HTTP/1.1 protocols: an unparseable request answered in the engine's JSON shape,
and each response sent in one system call.

A request whose request line or headers cannot be parsed never reaches the ASGI app:
uvicorn answers it itself, as `text/plain` "Invalid HTTP request received.". uvicorn
takes a protocol class for its `http` setting, and both of its HTTP/1.1 protocols send
that answer from one method, `send_400_response`; these subclasses send
`{"error": {"status": 400, "message": …}}` as `application/json` instead, with the same
status, the same `connection: close`, and nothing else changed.

uvicorn writes a response's head and its body to the transport separately, two sends
(two TCP segments on a connection without Nagle's algorithm) for every answer. The
transport these protocols see (`CoalescedWrites`) holds what is written during one step
of the event loop and hands it over at the end of that step in one `writelines` (one
`writev` under uvloop): same bytes, same order, one system call.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from pixops.wire import compact_json

__all__ = ["CoalescedWrites", "JsonH11Protocol", "invalid_request_body", "protocol_class"]


def invalid_request_body(message: str) -> bytes:
    """The pipeline's error shape for a request the HTTP parser refused."""
    return compact_json({"error": {"status": 400, "message": message}})


class CoalescedWrites:
    """A transport whose writes during one step of the event loop go out together.

    The first write of a step schedules a flush (`call_soon`: after the code running
    now, before the loop next waits for I/O); later writes of that step join it; the
    flush hands them to the real transport in order, in one `writelines`. `close` and
    `write_eof` flush first; everything else is the real transport's."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        # A caller may reuse a mutable buffer once `write` returns: keep a copy of it.
        chunk = data if isinstance(data, bytes) else bytes(data)
        if self._pending is None:
            self._pending = [chunk]
            self._loop.call_soon(self.flush)
        else:
            self._pending.append(chunk)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        """Hand what is held to the real transport (nothing when nothing is held)."""
        pending, self._pending = self._pending, None
        if not pending:
            return
        if len(pending) == 1:
            self._transport.write(pending[0])
        else:
            self._transport.writelines(pending)

    def get_write_buffer_size(self) -> int:
        held = sum(len(chunk) for chunk in self._pending or ())
        return int(self._transport.get_write_buffer_size()) + held

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _coalesced(transport: asyncio.Transport) -> asyncio.Transport:
    """`transport` with coalesced writes (uvloop's transports are not `asyncio.Transport`
    subclasses, so by what it does: it writes and writes lines)."""
    if not (callable(getattr(transport, "write", None)) and hasattr(transport, "writelines")):
        return transport
    return CoalescedWrites(transport, asyncio.get_running_loop())  # type: ignore[return-value]


class JsonH11Protocol(H11Protocol):
    """h11, with a JSON body on the 400 for an unparseable request, and coalesced writes."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_coalesced(transport))

    def send_400_response(self, msg: str) -> None:
        body = invalid_request_body(msg)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        self.transport.write(
            self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request"))
            or b""
        )
        self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()


@functools.cache
def _httptools_protocol() -> type[asyncio.Protocol]:
    # Imported on demand: httptools is optional for uvicorn.
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class JsonHttpToolsProtocol(HttpToolsProtocol):
        """httptools, with a JSON body on the 400 for an unparseable request, and coalesced
        writes."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(_coalesced(transport))

        def send_400_response(self, msg: str) -> None:
            body = invalid_request_body(msg)
            content = [b"HTTP/1.1 400 Bad Request\r\n"]
            for name, value in self.server_state.default_headers:
                content.extend([name, b": ", value, b"\r\n"])
            content.extend(
                [
                    b"content-type: application/json\r\n",
                    b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                    b"connection: close\r\n",
                    b"\r\n",
                    body,
                ]
            )
            self.transport.write(b"".join(content))
            self.transport.close()

    return JsonHttpToolsProtocol


def protocol_class(implementation: str) -> type[asyncio.Protocol]:
    """The protocol class for "h11" or "httptools" (uvicorn's `http` setting)."""
    if implementation == "h11":
        return JsonH11Protocol
    if implementation == "httptools":
        return _httptools_protocol()
    raise ValueError(f"no HTTP/1.1 protocol named {implementation!r}; use h11 or httptools")
