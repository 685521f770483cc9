"""Runs the chosen checks, one after the other, into a `Report`.

Each check gets one verdict whatever happens: a check that could not be made says why
(`CannotCheckError`), a check whose answer could not even be read fails naming what it got,
and the run always goes on with the next one. Once three checks in a row got no answer
at all, the rest are not sent (each says so) instead of waiting out every timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

import httpx

from pixops.conformance._catalogue import CHECKS
from pixops.conformance._expect import MismatchError
from pixops.conformance._model import CannotCheckError, Check, Report, Result
from pixops.conformance._session import SILENT_LIMIT, Session, Target

__all__ = ["UnknownCheckError", "run_conformance", "select_checks", "write_plan"]


class UnknownCheckError(ValueError):
    """`--only` or `--skip` named a check that does not exist."""


def select_checks(
    only: Iterable[str] = (), skip: Iterable[str] = (), *, write: bool = False
) -> tuple[Check, ...]:
    """The checks to run, in catalogue order: `only` (all when empty) less `skip`; the
    writing checks only with `write` (naming one in `only` without it is an error)."""
    only, skip = list(only), list(skip)
    known = {check.name: check for check in CHECKS}
    unknown = [name for name in [*only, *skip] if name not in known]
    if unknown:
        raise UnknownCheckError(
            f"no check named {', '.join(sorted(set(unknown)))}; `pixops conformance --list`"
            " shows them all"
        )
    writing = [name for name in only if known[name].writes]
    if writing and not write:
        raise UnknownCheckError(f"{', '.join(writing)} create state: add --write to run them")
    chosen = [
        check
        for check in CHECKS
        if (not only or check.name in only)
        and check.name not in skip
        and (write or not check.writes)
    ]
    return tuple(chosen)


def write_plan(checks: Sequence[Check]) -> list[str]:
    """One line per check that creates state: what it sends (shown before anything is)."""
    return [f"{check.name}: {check.sends}" for check in checks if check.writes]


def _one(session: Session, check: Check) -> Result:
    def result(got: str, verdict: str) -> Result:
        return Result(
            check.name,
            check.rule,
            session.redact(check.sends),
            session.redact(check.expected),
            session.redact(got),
            verdict,  # type: ignore[arg-type]
        )

    if session.silent >= SILENT_LIMIT:
        return result(
            f"not sent: the last {session.silent} checks got no answer ({session.last_silence})",
            "unchecked",
        )
    try:
        finding = check.run(session)
    except CannotCheckError as exc:
        return result(exc.cause, "unchecked")
    except MismatchError as exc:
        return result(exc.got, "fail")
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        # The answer was JSON of another shape than the rule's (a list for an object...).
        return result(f"an answer of another shape: {type(exc).__name__}: {exc}", "fail")
    return result(finding.got, "pass" if finding.passed else "fail")


def run_conformance(
    target: Target,
    *,
    checks: Sequence[Check] | None = None,
    transport: httpx.BaseTransport | None = None,
    timeout: float = 10.0,
    on_result: Callable[[Result], None] | None = None,
) -> Report:
    """Run `checks` (default: every read-only check) against `target`, through
    `transport` when given (an in-process sandbox), else over the network."""
    chosen = tuple(checks) if checks is not None else select_checks()
    started = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    results: list[Result] = []
    with Session(target, transport=transport, timeout=timeout) as session:
        for check in chosen:
            outcome = _one(session, check)
            results.append(outcome)
            if on_result is not None:
                on_result(outcome)
    return Report(
        base_url=target.api_root,
        client_id=target.client_id,
        started_at=started,
        write=any(check.writes for check in chosen),
        results=tuple(results),
    )
