"""`pixops serve` bounds a request's head before reading credentials, with either HTTP
parser, over a real loopback socket: a header that never ends, one complete but huge,
or too many fields get a 431 (or a closed connection), never an unbounded buffer."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from pixops._http_protocols import MAX_HEAD_BYTES, MAX_HEADER_FIELDS
from pixops.server import PixopsServer, ServeOptions
from tests.test_server import auth, serve

pytestmark = pytest.mark.timeout(60)

CHUNK = 64 * 1024


@pytest.fixture(scope="module", params=["h11", "httptools"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[PixopsServer, dict[str, str]]]:
    running, credentials = serve(ServeOptions(port=0, http=request.param))
    with running:
        yield running, auth(credentials)


def refused(port: int, head: bytes, total: int) -> bytes | None:
    """Send `head`, then header bytes up to `total` (bounded), then read the answer:
    the bytes answered, or None when the server closed or reset the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        sent = 0
        try:
            conn.sendall(head)
            while sent < total:  # at most total / CHUNK rounds
                size = min(CHUNK, total - sent)
                conn.sendall(b"a" * size)
                sent += size
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while chunk := conn.recv(65536):  # ends: the server closes (a timeout fails)
                answer += chunk
        except ConnectionResetError:
            return answer or None
        return answer or None


def assert_431(answer: bytes | None) -> None:
    if answer is None:  # closed before its answer could be read: allowed, and bounded
        return
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431"), answer[:200]
    assert b"connection: close" in head.lower()
    error = json.loads(body)["error"]
    assert error["status"] == 431
    assert error["message"].startswith("Request header fields too large")


def test_a_header_that_never_ends_is_cut_off(server: tuple[PixopsServer, dict[str, str]]) -> None:
    running, _ = server
    head = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\nX-Big: "
    answer = refused(running.port, head, MAX_HEAD_BYTES + CHUNK)  # and no end of headers
    assert_431(answer)


def test_a_complete_10_mb_header_is_not_answered_200(
    server: tuple[PixopsServer, dict[str, str]],
) -> None:
    running, headers = server
    head = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\n"
    head += b"".join(f"{k}: {v}\r\n".encode() for k, v in headers.items()) + b"X-Big: "
    answer = refused(running.port, head, 10 * 1024 * 1024)
    assert_431(answer)


def test_ten_connections_at_once_are_each_cut_off(
    server: tuple[PixopsServer, dict[str, str]],
) -> None:
    running, _ = server
    head = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\nX-Big: "
    answers: list[bytes | None] = []

    def one() -> None:
        answers.append(refused(running.port, head, 4 * MAX_HEAD_BYTES))

    threads = [threading.Thread(target=one) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(answers) == 10
    for answer in answers:
        assert_431(answer)


@pytest.mark.parametrize("over", [1, 8 * 1024, 100 * 1024])
def test_a_complete_head_over_the_limit_gets_431(
    server: tuple[PixopsServer, dict[str, str]], over: int
) -> None:
    """Sent whole, ended by its blank line: h11 bounded only an unfinished head, and
    answered a complete one of 33 to 130 KB with 200."""
    running, headers = server
    head = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\n"
    head += b"".join(f"{k}: {v}\r\n".encode() for k, v in headers.items())
    filler = MAX_HEAD_BYTES + over - len(head) - len(b"X-Big: \r\n\r\n")
    request = head + b"X-Big: " + b"a" * filler + b"\r\n\r\n"
    assert len(request) == MAX_HEAD_BYTES + over
    assert_431(refused(running.port, request, 0))


def test_a_head_of_exactly_the_limit_is_answered(
    server: tuple[PixopsServer, dict[str, str]],
) -> None:
    running, headers = server
    head = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\n"
    head += b"".join(f"{k}: {v}\r\n".encode() for k, v in headers.items())
    filler = MAX_HEAD_BYTES - len(head) - len(b"X-Big: \r\n\r\n")
    request = head + b"X-Big: " + b"a" * filler + b"\r\n\r\n"
    assert len(request) == MAX_HEAD_BYTES
    with socket.create_connection(("127.0.0.1", running.port), timeout=10) as conn:
        conn.sendall(request)
        answer = conn.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def test_too_many_header_fields_get_431(server: tuple[PixopsServer, dict[str, str]]) -> None:
    running, _ = server
    fields = b"".join(b"X-F%d: 1\r\n" % n for n in range(MAX_HEADER_FIELDS + 1))
    request = b"GET /api/external/balance HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n"
    answer = refused(running.port, request, 0)
    assert answer is not None  # small and complete: the answer is read whole
    assert_431(answer)


def test_requests_within_the_limits_are_answered(
    server: tuple[PixopsServer, dict[str, str]],
) -> None:
    running, headers = server
    within = {f"x-f{n}": "1" for n in range(MAX_HEADER_FIELDS - len(headers) - 8)}
    within["x-long"] = "a" * (MAX_HEAD_BYTES // 2)
    answer = httpx.get(
        running.base_url + "/api/external/balance", headers={**headers, **within}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    with httpx.Client(timeout=10) as client:  # keep-alive: several heads on one connection
        for _ in range(3):
            again = client.get(running.base_url + "/api/external/balance", headers=headers)
            assert again.status_code == 200
