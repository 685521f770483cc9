"""uvicorn's protocols with the JSON 400: chosen by name, the body they send, and the
transport that sends each step's writes in one call."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from pixops._http_protocols import (
    CoalescedWrites,
    JsonH11Protocol,
    invalid_request_body,
    protocol_class,
)


def test_each_parser_has_its_json_protocol() -> None:
    assert protocol_class("h11") is JsonH11Protocol
    assert issubclass(JsonH11Protocol, H11Protocol)
    httptools = protocol_class("httptools")
    assert issubclass(httptools, HttpToolsProtocol)
    assert protocol_class("httptools") is httptools


@pytest.mark.parametrize("name", ["auto", "h2", ""])
def test_only_the_two_http11_parsers_are_known(name: str) -> None:
    with pytest.raises(ValueError, match="h11 or httptools"):
        protocol_class(name)


def test_the_body_is_the_pipeline_error_shape() -> None:
    body = invalid_request_body("Invalid HTTP request received.")
    assert json.loads(body) == {
        "error": {"status": 400, "message": "Invalid HTTP request received."}
    }


class RecordingTransport:
    """What a transport was asked to do, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.buffered = 7

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def writelines(self, chunks: list[bytes]) -> None:
        self.calls.append(("writelines", list(chunks)))

    def close(self) -> None:
        self.calls.append(("close", None))

    def abort(self) -> None:
        self.calls.append(("abort", None))

    def write_eof(self) -> None:
        self.calls.append(("write_eof", None))

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def get_extra_info(self, name: str) -> str:
        return f"info:{name}"


def coalesced() -> tuple[CoalescedWrites, RecordingTransport, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    transport = RecordingTransport()
    return CoalescedWrites(transport, loop), transport, loop  # type: ignore[arg-type]


def run_one_step(loop: asyncio.AbstractEventLoop) -> None:
    loop.call_soon(loop.stop)
    loop.run_forever()


def test_the_writes_of_one_step_go_out_together_in_order() -> None:
    writes, transport, loop = coalesced()
    try:
        writes.write(b"HTTP/1.1 200 OK\r\n\r\n")
        writes.write(b"")
        writes.writelines([b'{"a":', b"1}"])
        assert transport.calls == []
        assert writes.get_write_buffer_size() == 7 + 19 + 7
        run_one_step(loop)
        assert transport.calls == [("writelines", [b"HTTP/1.1 200 OK\r\n\r\n", b'{"a":', b"1}"])]
        writes.write(b"next")
        run_one_step(loop)
        assert transport.calls[-1] == ("write", b"next")
        run_one_step(loop)
        assert len(transport.calls) == 2
    finally:
        loop.close()


def test_a_mutable_buffer_is_copied_when_held() -> None:
    writes, transport, loop = coalesced()
    try:
        buffer = bytearray(b"abc")
        writes.write(buffer)
        buffer[:] = b"xyz"
        run_one_step(loop)
        assert transport.calls == [("write", b"abc")]
    finally:
        loop.close()


def test_close_and_write_eof_send_what_is_held_first_and_abort_drops_it() -> None:
    writes, transport, loop = coalesced()
    try:
        writes.write(b"last words")
        writes.close()
        assert transport.calls == [("write", b"last words"), ("close", None)]
        writes.write(b"more")
        writes.write_eof()
        assert transport.calls[-2:] == [("write", b"more"), ("write_eof", None)]
        writes.write(b"dropped")
        writes.abort()
        run_one_step(loop)
        assert transport.calls[-1] == ("abort", None)
        assert ("write", b"dropped") not in transport.calls
    finally:
        loop.close()


def test_anything_else_is_the_real_transports() -> None:
    writes, _, loop = coalesced()
    try:
        assert writes.get_extra_info("peername") == "info:peername"
    finally:
        loop.close()
