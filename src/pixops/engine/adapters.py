"""Thin adapters over `Engine.handle`: httpx transports (sync, async) and an ASGI app.

All three pass the raw target, headers and body through unchanged, so the in-process
sandbox and the HTTP server answer byte for byte the same.
"""

from __future__ import annotations

from typing import Any

import httpx

from pixops._asgi import BodyTooLargeError, Receive, Scope, Send, lifespan, read_body
from pixops.engine.core import Engine, too_large


def _target(request: httpx.Request) -> str:
    return request.url.raw_path.decode("ascii")


def _headers(raw: list[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]


def _to_httpx(engine_response: Any, request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        engine_response.status,
        headers=engine_response.headers,
        content=engine_response.body,
        request=request,
    )


class EngineTransport(httpx.BaseTransport):
    """Sends httpx requests straight into the engine: no socket, no thread."""

    def __init__(self, engine: Engine, client_ip: str = "127.0.0.1") -> None:
        self.engine = engine
        self.client_ip = client_ip

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        response = self.engine.handle(
            request.method, _target(request), _headers(request.headers.raw), body, self.client_ip
        )
        return _to_httpx(response, request)


class AsyncEngineTransport(httpx.AsyncBaseTransport):
    """The async twin of `EngineTransport`; the engine call itself is short and synchronous."""

    def __init__(self, engine: Engine, client_ip: str = "127.0.0.1") -> None:
        self.engine = engine
        self.client_ip = client_ip

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        response = await self.engine.handle_async(
            request.method, _target(request), _headers(request.headers.raw), body, self.client_ip
        )
        return _to_httpx(response, request)


class AsgiApp:
    """The engine as an ASGI 3 application, for uvicorn."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        limit = self.engine.config.max_body_bytes
        headers = _headers(list(scope.get("headers", [])))
        declared = next(
            (value for name, value in headers if name.lower() == "content-length"), None
        )
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            await self._send(send, self.engine.dated(too_large(limit)))
            return
        try:
            body = await read_body(receive, limit)
        except BodyTooLargeError:
            await self._send(send, self.engine.dated(too_large(limit)))
            return
        if body is None:
            return
        raw_path = scope.get("raw_path") or scope["path"].encode("utf-8")
        target = raw_path.decode("latin-1")
        query = scope.get("query_string", b"")
        if query:
            target += "?" + query.decode("latin-1")
        client = scope.get("client")
        peer = client[0] if client else ""
        response = await self.engine.handle_async(scope["method"], target, headers, body, peer)
        await self._send(send, response)

    @staticmethod
    async def _send(send: Send, response: Any) -> None:
        # Content-Length last, as httpx adds it in-process: without it the server
        # would switch to chunked encoding and the two ways in would differ.
        headers = [*response.headers, ("content-length", str(len(response.body)))]
        await send(
            {
                "type": "http.response.start",
                "status": response.status,
                "headers": [
                    (name.encode("latin-1"), value.encode("latin-1")) for name, value in headers
                ],
            }
        )
        await send({"type": "http.response.body", "body": response.body})
