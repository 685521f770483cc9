"""uvicorn's HTTP/1.1 protocols, answering an unparseable request in the engine's JSON shape.

A request whose request line or headers cannot be parsed never reaches the ASGI app:
uvicorn answers it itself, as `text/plain` "Invalid HTTP request received.". uvicorn
takes a protocol class for its `http` setting, and both of its HTTP/1.1 protocols send
that answer from one method, `send_400_response`; these subclasses send
`{"error": {"status": 400, "message": …}}` as `application/json` instead, with the same
status, the same `connection: close`, and nothing else changed.
"""

from __future__ import annotations

import asyncio
import functools

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from pixops.engine.http import encode_json

__all__ = ["JsonH11Protocol", "invalid_request_body", "protocol_class"]


def invalid_request_body(message: str) -> bytes:
    """The pipeline's error shape for a request the HTTP parser refused."""
    return encode_json({"error": {"status": 400, "message": message}})


class JsonH11Protocol(H11Protocol):
    """h11, with a JSON body on the 400 for an unparseable request."""

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
        """httptools, with a JSON body on the 400 for an unparseable request."""

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
