"""`pixops doctor`: what support runs first when "the API is broken".

Each check says in plain words what it found and what to do: the server answers, the
credentials are accepted (only a 200 or a 403 from `GET /balance` proves it), the
account is active, this machine's IP is whitelisted, HMAC signing works (a
signed `POST /cpf/validate`), which read permissions the key has (one GET per read
endpoint; write permissions are not probed, since probing them would act), the clock
skew against the server's `Date`, and the rate-limit headroom. Nothing is retried: the
doctor reports what one attempt sees.
"""

from __future__ import annotations

import email.utils
import html
from collections.abc import Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

import httpx

from pixops.client._core import Call
from pixops.client._errors import TransportError, error_from_response
from pixops.client._retry import NO_RETRY

if TYPE_CHECKING:
    from pixops.client._async import AsyncClient
    from pixops.client._sync import Client

__all__ = ["Check", "DoctorReport", "run_doctor", "run_doctor_async"]

Verdict = Literal["ok", "warn", "fail", "skip"]
#: A valid CPF (the spec's examples use it too): signing is tested with a harmless call.
PROBE_CPF: Final = "52998224725"
MAX_SKEW_SECONDS: Final = 60.0
#: Read endpoints and the permission each one needs.
READ_PROBES: Final[tuple[tuple[str, str, dict[str, str]], ...]] = (
    ("account:read", "/balance", {}),
    ("transfer:read", "/transactions", {"per_page": "1"}),
    ("statement:read", "/statement", {"per_page": "1"}),
    ("pix:read", "/pix/keys", {}),
    ("payment:read", "/med", {"per_page": "1"}),
)
_COLOURS: Final = {"ok": "#1a7f37", "warn": "#9a6700", "fail": "#cf222e", "skip": "#888888"}


@dataclass(frozen=True)
class Check:
    name: str
    verdict: Verdict
    detail: str


@dataclass(frozen=True)
class DoctorReport:
    """The checks in order; `ok` when none failed."""

    base_url: str
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.verdict != "fail" for check in self.checks)

    def __str__(self) -> str:
        width = max(len(check.name) for check in self.checks)
        lines = [f"pixops doctor: {self.base_url}"]
        for check in self.checks:
            lines.append(f"  {check.verdict.upper():<4}  {check.name:<{width}}  {check.detail}")
        lines.append("all checks passed" if self.ok else "some checks FAILED")
        return "\n".join(lines)

    def to_frame(self) -> Any:
        """The checks as a pandas DataFrame (check, verdict, detail)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "check": [c.name for c in self.checks],
                "verdict": [c.verdict for c in self.checks],
                "detail": [c.detail for c in self.checks],
            }
        )

    def _repr_html_(self) -> str:
        """In Jupyter: the DataFrame of `to_frame()`, verdicts coloured (a plain HTML
        table when pandas or its styler is not installed)."""
        try:
            frame = self.to_frame()
            styled = frame.style.map(
                lambda verdict: f"color:{_COLOURS.get(verdict, '#000')};font-weight:bold",
                subset=["verdict"],
            ).set_caption(f"pixops doctor: {html.escape(self.base_url)}")
            return str(styled.hide(axis="index").to_html())
        except ImportError:
            return self._plain_html()

    def _plain_html(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(c.name)}</td>"
            f"<td><b style='color:{_COLOURS[c.verdict]}'>{c.verdict}</b></td>"
            f"<td style='text-align:left'>{html.escape(c.detail)}</td></tr>"
            for c in self.checks
        )
        return (
            f"<b>pixops doctor</b> <code>{html.escape(self.base_url)}</code>"
            f"<table><tr><th>check</th><th>verdict</th><th>detail</th></tr>{rows}</table>"
        )


def _send(client: Client, call: Call) -> httpx.Response | str:
    try:
        return client.send(call)
    except TransportError as exc:
        return f"{exc.summary}; {exc.hint}" if exc.summary else str(exc)


def _reason(response: httpx.Response) -> str:
    return error_from_response(response.status_code, response.content, response.headers).message


def _clock_check(response: httpx.Response) -> Check:
    header = response.headers.get("date")
    if header is None:
        return Check("clock skew", "skip", "the server sent no Date header")
    try:
        server = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return Check("clock skew", "warn", f"unreadable Date header {header!r}")
    if server.tzinfo is None:
        server = server.replace(tzinfo=UTC)
    skew = (datetime.now(UTC) - server).total_seconds()
    text = f"this machine is {abs(skew):.0f} s {'ahead of' if skew >= 0 else 'behind'} the server"
    if abs(skew) > MAX_SKEW_SECONDS:
        return Check(
            "clock skew", "warn", text + "; sync the clock (NTP): date filters and logs drift"
        )
    return Check("clock skew", "ok", text)


Answer = httpx.Response | str
"""What one probe got: the response, or the text of a transport failure."""


def run_doctor(client: Client) -> DoctorReport:
    """Every check against `client`'s base URL and credentials, one attempt each."""
    quiet = client.with_options(retry=NO_RETRY)
    steps = _examine(client.base_url, client.client_id)
    call = next(steps)
    while True:
        try:
            call = steps.send(_send(quiet, call))
        except StopIteration as finished:
            report: DoctorReport = finished.value
            return report


async def run_doctor_async(client: AsyncClient) -> DoctorReport:
    """`run_doctor` for an `AsyncClient`: the same checks, awaited."""
    quiet = client.with_options(retry=NO_RETRY)
    steps = _examine(client.base_url, client.client_id)
    call = next(steps)
    while True:
        try:
            answer: Answer = await quiet.send(call)
        except TransportError as exc:
            answer = f"{exc.summary}; {exc.hint}" if exc.summary else str(exc)
        try:
            call = steps.send(answer)
        except StopIteration as finished:
            report: DoctorReport = finished.value
            return report


def _examine(base_url: str, client_id: str) -> Generator[Call, Answer, DoctorReport]:
    """The checks, in order: yields each request to send, receives what it got."""
    checks: list[Check] = []

    def done() -> DoctorReport:
        return DoctorReport(base_url, tuple(checks))

    document = yield Call("GET", "/openapi.json")
    if isinstance(document, str):
        checks.append(
            Check(
                "server answers",
                "fail",
                f"no answer: {document}",
            )
        )
        return done()
    checks.append(Check("server answers", "ok", f"HTTP {document.status_code} from {base_url}"))
    balance = yield Call("GET", "/balance")
    if isinstance(balance, str):
        checks.append(Check("credentials accepted", "fail", balance))
        return done()
    status, reason = balance.status_code, _reason(balance) if balance.status_code >= 400 else ""
    if status == 401:
        checks.append(
            Check(
                "credentials accepted",
                "fail",
                f"{reason}: check PIXOPS_CLIENT_ID"
                " and PIXOPS_CLIENT_SECRET, and that the key is active",
            )
        )
        return done()
    if status not in (200, 403):
        # Only a 200 or a 403 (a later check refusing) proves the key was accepted.
        checks.append(
            Check(
                "credentials accepted",
                "fail",
                f"GET /balance answered HTTP {status}: {reason}; check that base_url is the"
                " service's address (a 404 or an HTML page says it is not), or try again"
                " later (a 5xx is the service failing)",
            )
        )
        return done()
    checks.append(Check("credentials accepted", "ok", f"client_id {client_id}"))
    if status == 403 and "not active" in reason.lower():
        checks.append(
            Check(
                "account active",
                "fail",
                f"{reason}: the merchant account is disabled; ask the service to reactivate it",
            )
        )
        return done()
    if status == 403 and "permission" not in reason.lower():
        checks.append(
            Check(
                "IP whitelisted",
                "fail",
                f"{reason}: ask for this machine's public IP to be added to the key's whitelist",
            )
        )
        return done()
    checks.append(Check("IP whitelisted", "ok", "requests from this machine are let in"))
    signed = yield Call("POST", "/cpf/validate", body={"cpf": PROBE_CPF})
    if isinstance(signed, str):
        checks.append(Check("HMAC signing", "fail", signed))
    elif signed.status_code == 200:
        checks.append(Check("HMAC signing", "ok", "a signed POST /cpf/validate was accepted"))
    elif signed.status_code == 403 and "permission" in _reason(signed).lower():
        checks.append(Check("HMAC signing", "skip", "needs account:read to test"))
    else:
        checks.append(
            Check("HMAC signing", "fail", f"HTTP {signed.status_code}: {_reason(signed)}")
        )
    granted, missing, untold, headroom = [], [], [], None
    for permission, path, query in READ_PROBES:
        probe = yield Call("GET", path, dict(query))
        if isinstance(probe, str):
            untold.append(f"{permission} (no answer)")
            continue
        if probe.status_code == 403:
            missing.append(permission)
            continue
        if probe.status_code != 200:
            # A 429 or a 5xx says nothing of the permission.
            untold.append(f"{permission} (HTTP {probe.status_code})")
            continue
        granted.append(permission)
        remaining = probe.headers.get("x-ratelimit-remaining")
        if remaining is not None and remaining.isdigit():
            headroom = int(remaining)
    detail = f"granted: {', '.join(granted) or 'none'}"
    if missing:
        detail += f"; missing: {', '.join(missing)}"
    if untold:
        detail += f"; not told: {', '.join(untold)}"
    detail += " (write permissions are not probed)"
    checks.append(Check("read permissions", "ok" if granted and not untold else "warn", detail))
    checks.append(_clock_check(balance))
    if headroom is None:
        checks.append(Check("rate-limit headroom", "skip", "no x-ratelimit-remaining seen"))
    else:
        verdict: Verdict = "ok" if headroom > 100 else "warn"
        checks.append(
            Check(
                "rate-limit headroom", verdict, f"{headroom} requests left in this 60-second window"
            )
        )
    return done()
