"""Raw HTTP for the checks: exact status, headers and bytes, signed with `pixops.wire`.

The typed client would turn answers into exceptions and models, and hide what a check
must see; a `Session` sends each `Probe` as written (deliberately broken credentials and
signatures included) and hands back the answer untouched. What is not an answer of the
service becomes `CannotCheckError` with its cause in a line: no answer (refused, timed out, a
TLS failure), a 5xx, an HTML page from a proxy, a body that is not JSON.
"""

from __future__ import annotations

import base64
import json
import re
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import httpx

from pixops import wire
from pixops.conformance._model import CannotCheckError, Probe

__all__ = ["Answer", "Session", "Target"]

T = TypeVar("T")
SILENT_LIMIT: Final = 3
"""After this many checks in a row got no answer at all, the rest are not sent."""
_TITLE: Final = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
REDACTED: Final = "[secret]"


@dataclass(frozen=True)
class Target:
    """Where to send and with which key; without a key only the unauthenticated checks run."""

    api_root: str
    client_id: str | None = None
    client_secret: str | None = None

    def __repr__(self) -> str:
        return f"Target(api_root={self.api_root!r}, client_id={self.client_id!r})"

    @property
    def has_key(self) -> bool:
        return bool(self.client_id and self.client_secret)


@dataclass(frozen=True)
class Answer:
    """One answer as it came: status, headers, bytes, and the parsed JSON."""

    status: int
    headers: httpx.Headers
    content: bytes
    body: Any


def broken_copy(secret: str) -> str:
    """The secret with its last character changed: the caller's own key, deliberately wrong."""
    last = "x" if secret[-1:] != "x" else "y"
    return secret[:-1] + last


class Session:
    """Sends probes to one service over one httpx client (or a transport given in)."""

    def __init__(
        self,
        target: Target,
        *,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.target = target
        self.timeout = timeout
        self.run_id = uuid.uuid4().hex[:12]
        self.silent = 0
        self.last_silence = ""
        self._memo: dict[str, object] = {}
        self._http = httpx.Client(transport=transport, timeout=timeout, follow_redirects=False)
        self._hidden = self._hidden_strings()

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def probe_ref(self) -> str:
        """The external id every probe of this run carries: nothing may ever hold it
        unless a `--write` check created it."""
        return f"pixops-conformance-{self.run_id}"

    def _hidden_strings(self) -> list[str]:
        secret = self.target.client_secret
        if not secret:
            return []
        hidden = {secret, broken_copy(secret)}
        for used in (secret, broken_copy(secret)):
            pair = f"{self.target.client_id}:{used}".encode()
            hidden.add(base64.b64encode(pair).decode("ascii"))
        # As a JSON string writes them too (a quote or backslash in the secret is escaped).
        hidden |= {json.dumps(text)[1:-1] for text in list(hidden)}
        return sorted(hidden, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """`text` with the secret, its broken copy and their Basic tokens replaced."""
        for hidden in self._hidden:
            text = text.replace(hidden, REDACTED)
        return text

    def _redact_bytes(self, content: bytes) -> bytes:
        """An answer's bytes redacted as they arrive, before any check reads or cuts
        them: a service echoing a header cannot put a piece of the secret in a report."""
        for hidden in self._hidden:
            content = content.replace(hidden.encode(), REDACTED.encode())
        return content

    def once(self, name: str, make: Callable[[], T]) -> T:
        """`make()` run once per session (an `CannotCheckError` it raises is raised again)."""
        if name not in self._memo:
            try:
                self._memo[name] = make()
            except CannotCheckError as exc:
                self._memo[name] = exc
        value = self._memo[name]
        if isinstance(value, CannotCheckError):
            raise CannotCheckError(value.cause)
        return value  # type: ignore[return-value]

    # -- sending -------------------------------------------------------------------

    def _headers(self, probe: Probe, content: bytes | None) -> dict[str, str]:
        target = self.target
        headers: dict[str, str] = {"accept": "application/json", "user-agent": "pixops-conformance"}
        if probe.auth != "none":
            if not target.has_key:
                raise CannotCheckError(
                    "needs PIXOPS_CLIENT_ID and PIXOPS_CLIENT_SECRET, which are not set"
                )
            secret = str(target.client_secret)
            if probe.auth == "wrong-secret":
                secret = broken_copy(secret)
            if probe.auth == "basic":
                token = base64.b64encode(f"{target.client_id}:{secret}".encode()).decode()
                headers["authorization"] = f"Basic {token}"
            else:
                headers["authorization"] = f"ApiKey {target.client_id}:{secret}"
        if probe.method == "POST" and content is not None:
            headers["content-type"] = "application/json"
            if probe.sign != "none" and target.client_secret:
                key = target.client_secret
                if probe.sign == "wrong":
                    key = broken_copy(key)
                headers["hmac"] = wire.sign(content, key)
        if probe.idempotency_key is not None:
            headers["idempotency-key"] = probe.idempotency_key
        for name, value in probe.headers:
            headers[name.lower()] = value
        return headers

    def send(self, probe: Probe) -> Answer:
        """The answer to `probe`; `CannotCheckError` when it is not an answer of the service."""
        body = probe.body
        content = (
            body if body is None or isinstance(body, bytes) else wire.canonical_json(dict(body))
        )
        headers = self._headers(probe, content)
        url = self.target.api_root + probe.path
        try:
            response = self._http.request(probe.method, url, content=content, headers=headers)
        except httpx.HTTPError as exc:
            self.silent += 1
            self.last_silence = self.redact(self._no_answer(exc))
            raise CannotCheckError(f"{probe.method} {probe.path}: {self.last_silence}") from None
        self.silent = 0
        return self._read(probe, response)

    def _no_answer(self, exc: httpx.HTTPError) -> str:
        host = self.target.api_root.split("/api/external", 1)[0]
        if isinstance(exc, httpx.TimeoutException):
            return f"no answer within {self.timeout:g} s ({type(exc).__name__})"
        tls = _tls_failure(exc)
        if tls is not None:
            return (
                f"TLS failed ({tls}): this machine does not trust the server's certificate;"
                " for `pixops serve --tls-cert`, export SSL_CERT_FILE=<that cert.pem>"
            )
        if isinstance(exc, httpx.ConnectError):
            return f"could not connect to {host} ({exc or type(exc).__name__})"
        return f"no answer from {host} ({type(exc).__name__}: {exc})"

    def _read(self, probe: Probe, response: httpx.Response) -> Answer:
        where = f"{probe.method} {probe.path}"
        status = response.status_code
        content = self._redact_bytes(response.content)
        media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media == "text/html" or content.lstrip()[:1] == b"<":
            title = _TITLE.search(content)
            named = (
                f" ({title.group(1).decode('utf-8', 'replace').strip()[:80]!r})" if title else ""
            )
            raise CannotCheckError(
                f"{where}: HTTP {status} answered with an HTML page{named}, not JSON: a proxy"
                " or a server that is not the PIX service answered"
            )
        if status >= 500:
            raise CannotCheckError(
                f"{where}: HTTP {status}: the service failed (a 5xx says nothing of this"
                " rule); run again later"
            )
        try:
            body = json.loads(content) if content else None
        except (ValueError, RecursionError):
            raise CannotCheckError(
                f"{where}: HTTP {status} answered {media or 'no content type'}, not JSON:"
                f" {content[:60]!r}; is the base URL the PIX service?"
            ) from None
        return Answer(status, response.headers, content, body)


def _tls_failure(exc: BaseException) -> str | None:
    """The TLS reason when `exc` comes from a failed handshake, else None."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ssl.SSLCertVerificationError):
            return str(cause.verify_message or cause.reason or "certificate not trusted")
        if isinstance(cause, ssl.SSLError):
            return str(cause.reason or cause)
        cause = cause.__cause__ or cause.__context__
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text or "SSL" in text:
        return text[:120]
    return None
