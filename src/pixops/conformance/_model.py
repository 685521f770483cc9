"""What a conformance run is made of: checks, the requests they send, and their results.

A `Check` is a small declarative object: its name, the rule of `docs/api.md` it checks
(the section and the row or sentence), what it sends, what it expects, and a function
that sends its requests through a `Session` and says what it got. The runner turns each
into a `Result` with one of three verdicts: it passed, it failed, or it could not be
checked (no answer, a 5xx, an HTML page, a precondition the account lacks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pixops.conformance._session import Session

__all__ = [
    "CannotCheckError",
    "Check",
    "Finding",
    "Probe",
    "Report",
    "Result",
    "Verdict",
]

Verdict = Literal["pass", "fail", "unchecked"]
Auth = Literal["key", "none", "wrong-secret", "basic"]
Signing = Literal["good", "none", "wrong"]


class CannotCheckError(Exception):
    """The check could not be made; `cause` says why in one line (never a secret)."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


@dataclass(frozen=True)
class Probe:
    """One raw request: path under `/api/external` (a query may follow `?`), the body as
    bytes sent exactly or a JSON object written canonically, which credentials, and how
    the body is signed. POSTs carry `Content-Type: application/json` unless `headers`
    names another one."""

    method: str
    path: str
    body: bytes | Mapping[str, Any] | None = None
    auth: Auth = "key"
    sign: Signing = "good"
    headers: tuple[tuple[str, str], ...] = ()
    idempotency_key: str | None = None

    def describe(self) -> str:
        """`POST /cpf/validate` with what differs from a well-formed request."""
        notes = {
            "none": "no Authorization",
            "wrong-secret": "a wrong secret",
            "basic": "Basic credentials",
        }
        parts = [f"{self.method} {self.path}"]
        if self.auth != "key":
            parts.append(notes[self.auth])
        if self.method == "POST" and self.sign == "none":
            parts.append("no hmac")
        elif self.method == "POST" and self.sign == "wrong":
            parts.append("a wrong hmac")
        parts.extend(f"{name}: {value[:40]}" for name, value in self.headers)
        if self.idempotency_key is not None:
            shown = self.idempotency_key
            shown = shown if len(shown) <= 40 else f"{len(shown)} characters"
            parts.append(f"Idempotency-Key {shown}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Finding:
    """What a check saw: whether it matched, and the answer in a line."""

    passed: bool
    got: str


@dataclass(frozen=True)
class Check:
    """One rule of the spec, checked by `run` against a live session."""

    name: str
    rule: str
    sends: str
    expected: str
    run: Callable[[Session], Finding] = field(repr=False, compare=False)
    writes: bool = False
    needs_key: bool = True


@dataclass(frozen=True)
class Result:
    name: str
    rule: str
    sends: str
    expected: str
    got: str
    verdict: Verdict


@dataclass(frozen=True)
class Report:
    """Every result in run order, where it ran, and whether writing checks were on."""

    base_url: str
    client_id: str | None
    started_at: str
    write: bool
    results: tuple[Result, ...]

    @property
    def passed(self) -> bool:
        """True only when every check ran and passed."""
        return bool(self.results) and all(r.verdict == "pass" for r in self.results)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for r in self.results if r.verdict == verdict)

    def summary(self) -> str:
        """`31 passed, 1 failed, 2 could not be checked (a, b)`."""
        text = f"{self.count('pass')} passed, {self.count('fail')} failed"
        unchecked = [r.name for r in self.results if r.verdict == "unchecked"]
        text += f", {len(unchecked)} could not be checked"
        if unchecked:
            text += f" ({', '.join(unchecked)})"
        return text
