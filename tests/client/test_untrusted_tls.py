"""A server whose TLS certificate this machine does not trust (a `pixops serve
--tls-cert` self-signed one): the errors name the certificate and how to trust it, not
the network."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import pixops
from pixops.client import NO_RETRY, TransportError
from pixops.devcert import write_dev_certificate


@pytest.fixture
def untrusted_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An HTTPS address on loopback that completes no handshake with a default client."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    certificate = write_dev_certificate(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate.cert, certificate.key)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # so the loop sees `stop` soon after the test
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            try:
                with context.wrap_socket(connection, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                connection.close()  # the client refused the certificate, as expected

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(timeout=10)
    listener.close()


def test_a_call_names_the_untrusted_certificate_and_ssl_cert_file(untrusted_server: str) -> None:
    client = pixops.Client(untrusted_server, "cli_x", "sk_x", retry=NO_RETRY)
    with client, pytest.raises(TransportError) as raised:
        client.balance()
    text = str(raised.value)
    assert text.startswith("GET /balance: TLS certificate not trusted (self-signed certificate)")
    assert "SSL_CERT_FILE" in text
    assert "check base_url and the network" not in text


def test_an_untrusted_certificate_is_not_retried(untrusted_server: str) -> None:
    slept: list[float] = []
    client = pixops.Client(untrusted_server, "cli_x", "sk_x", sleep=slept.append)
    with client, pytest.raises(TransportError, match="after 1 attempt") as raised:
        client.balance()
    assert (slept, raised.value.retryable) == ([], False)


def test_doctor_says_to_trust_the_certificate(untrusted_server: str) -> None:
    with pixops.Client(untrusted_server, "cli_x", "sk_x") as client:
        report = client.doctor()
    (check,) = report.checks
    assert (check.name, check.verdict) == ("server answers", "fail")
    assert "TLS certificate not trusted (self-signed certificate)" in check.detail
    assert "SSL_CERT_FILE" in check.detail
    assert "DNS" not in check.detail
