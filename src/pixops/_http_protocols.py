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

A request's head (request line and header fields) is bounded before anything else
reads it: at most `MAX_HEAD_BYTES` bytes and `MAX_HEADER_FIELDS` fields, else a 431 in
the same JSON shape and the connection closed. httptools keeps whatever a header holds
until it ends (ten connections each sending 50 MB of one header took the server from
64 MB to 576 MB, before credentials were even read); h11 bounds an unfinished head
itself (`h11_max_incomplete_event_size`, set to the same limit) but answered 400, and
a complete head that arrived in one or two reads is measured once parsed.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from pixops.wire import compact_json

__all__ = [
    "MAX_HEADER_FIELDS",
    "MAX_HEAD_BYTES",
    "TOO_LARGE_MESSAGE",
    "CoalescedWrites",
    "JsonH11Protocol",
    "invalid_request_body",
    "protocol_class",
]

#: The request line and the header fields together, in bytes (nginx's default buffers
#: hold 32 KiB; a signed request of this API needs well under 2 KiB).
MAX_HEAD_BYTES: Final = 32 * 1024
#: Header fields of one request (Apache's LimitRequestFields default).
MAX_HEADER_FIELDS: Final = 100
TOO_LARGE_MESSAGE: Final = (
    f"Request header fields too large: at most {MAX_HEAD_BYTES} bytes of request line"
    f" and headers, and {MAX_HEADER_FIELDS} header fields"
)
_REASONS: Final = {400: b"Bad Request", 431: b"Request Header Fields Too Large"}


def invalid_request_body(message: str, status: int = 400) -> bytes:
    """The pipeline's error shape for a request the HTTP parser refused."""
    return compact_json({"error": {"status": status, "message": message}})


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


def _head_bytes(request: h11.Request) -> int:
    """The bytes of a parsed request's head as sent: its request line and each field
    line (``name: value`` and CRLF), and the blank line ending it."""
    line = len(request.method) + len(request.target) + len(b"  HTTP/1.1\r\n")
    fields = sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items())
    return line + fields + 2


class _BoundedConnection(h11.Connection):
    """h11's connection, refusing a request with more than `MAX_HEADER_FIELDS` fields or
    a complete head over `MAX_HEAD_BYTES` (h11 itself bounds only an unfinished head's
    bytes: one that arrived whole in a read or two, 100 KB say, was answered 200), and
    keeping the status its last refusal asks for: 431 for a head too large, else 400."""

    refusal_status = 400

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.refusal_status = 431 if error.error_status_hint == 431 else 400
            raise
        if isinstance(event, h11.Request) and (
            len(event.headers) > MAX_HEADER_FIELDS or _head_bytes(event) > MAX_HEAD_BYTES
        ):
            self.refusal_status = 431
            raise h11.RemoteProtocolError(TOO_LARGE_MESSAGE, error_status_hint=431)
        return event


class JsonH11Protocol(H11Protocol):
    """h11, with a JSON body on the 400 for an unparseable request (431 for a head over
    the limits), and coalesced writes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _BoundedConnection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_coalesced(transport))

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this for every h11 RemoteProtocolError, a head too large included.
        status = getattr(self.conn, "refusal_status", 400)
        body = invalid_request_body(TOO_LARGE_MESSAGE if status == 431 else msg, status)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        response = h11.Response(status_code=status, headers=headers, reason=_REASONS[status])
        self.transport.write(self.conn.send(response) or b"")
        self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()


@functools.cache
def _httptools_protocol() -> type[asyncio.Protocol]:
    # Imported on demand: httptools is optional for uvicorn.
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class JsonHttpToolsProtocol(HttpToolsProtocol):
        """httptools, with a JSON body on the 400 for an unparseable request, a 431 for a
        head over the limits, and coalesced writes.

        httptools keeps every byte of an unfinished header; so the bytes received while
        a head is open are counted before the parser sees the next ones: whole reads
        during which no head completed are head bytes (a read in which one completes
        resets the count, so a body is never counted)."""

        _head_open = True
        _head_bytes = 0
        _fields = 0
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(_coalesced(transport))

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            if self._head_open:
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BYTES:
                    self._refuse()
                    return
            super().data_received(data)
            if self._fields > MAX_HEADER_FIELDS and not self._refused:
                self._refuse()

        def on_message_begin(self) -> None:
            self._fields = 0
            super().on_message_begin()

        def on_header(self, name: bytes, value: bytes) -> None:
            self._fields += 1
            if self._fields <= MAX_HEADER_FIELDS:  # the rest are refused, never kept
                super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._head_open, self._head_bytes = False, 0
            if self._fields > MAX_HEADER_FIELDS:
                self._refuse()
                # The parser goes on with this read; nothing of it may reach the app.
                raise httptools.HttpParserError(TOO_LARGE_MESSAGE)
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._head_open = True
            super().on_message_complete()

        def _refuse(self) -> None:
            self._refused = True
            self._send_refusal(431, TOO_LARGE_MESSAGE)

        def send_400_response(self, msg: str) -> None:
            if not self._refused:
                self._send_refusal(400, msg)

        def _send_refusal(self, status: int, msg: str) -> None:
            body = invalid_request_body(msg, status)
            content = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])]
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
