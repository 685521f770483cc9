"""What every panel shares: the client check, the service's clock, the webhook inbox."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, runtime_checkable

from pixops._connection import connection_of
from pixops.errors import PixopsError

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = [
    "Clock",
    "Event",
    "EventSource",
    "InvalidTextError",
    "Stopped",
    "check_client",
    "check_service",
    "clock_for",
    "date_echo",
    "date_text",
    "events_for",
    "fitted",
    "inbox_for",
    "month_days",
    "panel_heading",
    "side_by_side",
    "valid_text",
    "when_clicked",
    "zone_hint",
]

Clock = Callable[[], datetime]
#: A webhook event as the inbox keeps it: the JSON object of a verified delivery. It is
#: no answer of the client (no pydantic model exists for it); its fields are read with
#: care, as anything received from outside.
Event: TypeAlias = dict[str, Any]


@runtime_checkable
class EventSource(Protocol):
    """Where the panels read the service's notices: `pixops.webhooks.Inbox`."""

    @property
    def events(self) -> list[Event]: ...


def check_client(client: object, *needs: str) -> None:
    """Refuse anything that is not a pixops client, with a clear message."""
    missing = [name for name in needs if not hasattr(client, name)]
    if client is None or missing:
        raise TypeError(
            "pass a pixops.Client (for example pixops.connect()); "
            f"this object has no {', '.join(missing) or 'client API'}"
        )


class InvalidTextError(PixopsError, ValueError):
    """Typed or pasted text that is not valid text (a lone surrogate, half of a
    character): it cannot be searched for, sent, or even shown back in the notebook."""


def valid_text(value: str, what: str) -> str:
    """`value` unchanged when it is valid text (encodable as UTF-8), else `InvalidTextError`
    naming the box (`what`) and the position of the broken character.

    A lone surrogate (``"\\ud800"``, from a damaged file or a clipboard) reached the
    service's URL and every status line that quotes the search, where the kernel fails
    to send it to the browser (a UnicodeEncodeError traceback instead of an answer).
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidTextError(
            f"The {what} is not valid text: character {error.start + 1} is a broken one"
            " (half of a character, as a copy from a damaged file can hold). Delete it and"
            " type the text again."
        ) from None
    return value


def clock_for(client: object, now: Clock | None) -> Clock:
    """The given clock, else the service's: the sandbox's virtual clock of a `connect()`
    client, else the time the client reads from the service's answers
    (`Client.service_time`); this machine's clock only for a client that has neither.

    A panel on `Sandbox.client(...)` lives in the sandbox's January, not in this
    machine's November: refunds and MED deadlines are judged on the service's time.
    """
    if now is not None:
        if not callable(now):
            raise TypeError("now must be a callable returning an aware datetime")
        return now
    connection = connection_of(client)
    if connection is not None and connection.clock is not None:
        return connection.clock
    served = getattr(client, "service_time", None)
    if callable(served):
        return _served_clock(served)
    return lambda: datetime.now(UTC)


def _served_clock(served: Callable[[], datetime]) -> Clock:
    """The client's reading of the service's time. Unreachable before its first answer,
    the service has no time to give: this machine's is the guess, and the panel's own
    request then says what is wrong."""

    def now() -> datetime:
        try:
            moment = served()
        except PixopsError:
            return datetime.now(UTC)
        if not isinstance(moment, datetime) or moment.tzinfo is None:
            raise TypeError(f"service_time() must return an aware datetime, not {moment!r}")
        return moment

    return now


def inbox_for(client: object, inbox: object) -> EventSource | None:
    """The given webhook inbox, else the connection's, else None."""
    if inbox is not None:
        if not isinstance(inbox, EventSource):
            raise TypeError("inbox must be a pixops.webhooks.Inbox")
        return inbox
    connection = connection_of(client)
    return None if connection is None else connection.inbox


def events_for(inbox: EventSource | None, ids: set[str]) -> list[Event]:
    """Webhook events about any of these ids (transaction, original or MED case), in order,
    each refund's completion once. From an inbox that can look ids up
    (`Inbox.events_about`), only those events are copied, not the month's ~8,800."""
    if inbox is None or not ids:
        return []
    about = getattr(inbox, "events_about", None)
    if not callable(about):
        everything = inbox.events
        return _about(everything, ids, everything)
    matched: list[Event] = about(ids)
    returned = {
        data.get("transaction_id")
        for event in matched
        if event.get("type") == "pix.payout.returned"
        and isinstance(data := event.get("data"), dict)
    }
    returned.discard(None)
    # A refund's completion names the returned payout's transaction_id: found by it.
    return _about(matched, ids, about(returned) if returned else [])


def _about(events: list[Event], ids: set[str], completions: list[Event]) -> list[Event]:
    """`events` about `ids`, less each `pix.payout.returned` that repeats a
    `pix.refund.completed` of `completions`."""
    completed = {
        (event.get("data") or {}).get("transaction_id")
        for event in completions
        if event.get("type") == "pix.refund.completed"
    }
    found: list[Event] = []
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        keys = {
            data.get("transaction_id"),
            data.get("original_transaction_id"),
            data.get("med_case_id"),
            data.get("charge_txid"),
        }
        # `pix.payout.returned` repeats a refund's `pix.refund.completed`: shown once.
        repeated = (
            event.get("type") == "pix.payout.returned" and data.get("transaction_id") in completed
        )
        if keys & ids and not repeated:
            found.append(event)
    return found


def when_clicked(button: Any, action: Callable[[], None], *, busy: bool = False) -> None:
    """Run `action` when `button` is clicked, but never on a click the button no longer
    takes: the second click of a double click arrives after the first one's action has
    disabled the button (a refund sent, a defense submitted), and must change nothing,
    least of all replace the answer with a complaint.

    Nor on a click handled while its own action still runs: a kernel that serves widget
    messages while the action waits (seen under load) handed the second click to a panel
    halfway through the first, with the text already cleared ("Write the defense first").

    With `busy`, the button is disabled while the action runs (the browser greys it, so a
    person sees the click was taken) and enabled again afterwards.
    """
    running = False

    def clicked(_: Any) -> None:
        nonlocal running
        if button.disabled or running:
            return
        running = True
        if busy:
            button.disabled = True
        try:
            action()
        finally:
            running = False
            if busy:
                button.disabled = False

    button.on_click(clicked)


_WEEKDAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS: Final = (
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
)  # fmt: skip


def date_text(day: date | None) -> str:
    """A picked date the pt-BR way, its weekday and month named (no locale needed):
    ``02/01/2026 (Fri, 2 Jan)``, which no reader takes for the 1st of February."""
    if day is None:
        return "no date chosen"
    return f"{day:%d/%m/%Y} ({_WEEKDAYS[day.weekday()]}, {day.day} {_MONTHS[day.month - 1]})"


def date_echo(picker: Any) -> Any:
    """A label beside a date picker that always says the picked date as dd/mm/yyyy.

    The picker is the browser's own date input, drawn in the browser's language:
    mm/dd/yyyy in an en-US Chromium, where 01/02/2026 is February to a Brazilian reader.
    The echo leaves no doubt whatever the browser shows.
    """
    import ipywidgets as w

    echo = w.HTML(layout=w.Layout(margin="0 16px 0 4px"))
    echo.add_class("pixops-date-echo")

    def show(_: Any = None) -> None:
        day = picker.value
        text = html.escape(date_text(day))
        colour = "#b00020" if day is None else "#1f4e79"
        echo.value = f'<span style="color:{colour};white-space:nowrap">= {text}</span>'

    picker.observe(show, names="value")
    show()
    return echo


def fitted(width: str, **more: str) -> Any:
    """A layout `width` wide at most: in a narrow notebook (a 1024 px window with Lab's
    file browser open) the widget narrows to the cell instead of being cut at its edge.
    The cap leaves room for the widget's own margin on both sides: at ``100%`` a dropdown
    straight in a panel ran 2 px past it on a phone, its arrow cut off."""
    import ipywidgets as w

    return w.Layout(width=width, max_width=_WITHIN_MARGINS, **more)


#: The box's width less a widget's margin (ipywidgets' theme variable, 2 px) each side.
_WITHIN_MARGINS = "calc(100% - 2 * var(--jp-widgets-margin, 2px))"


def side_by_side(*children: Any) -> Any:
    """Widgets side by side that wrap onto the next line when the cell is too narrow for
    them all (a date picker or a button is never cut off at the right edge)."""
    import ipywidgets as w

    return w.HBox(list(children), layout=w.Layout(flex_flow="row wrap"))


class Stopped(PixopsError):  # noqa: N818  (what the reader sees: "Stopped")
    """Stops a notebook's Run All with one plain line, not a traceback: IPython shows
    what `_render_traceback_` returns in place of the traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


class ServiceStopped(Stopped):
    """`Stopped` by `check_service`: the service could not be used (not reached,
    credentials refused, an unreadable answer). Its own kind, so `pixops report` exits 3
    on it, as `pixops recon` does, and a scheduler tells an outage from a broken report."""


def month_days(month: object, *, client: Client | None = None) -> tuple[date, date]:
    """The first and the last day of a month written ``yyyy-mm`` (``"2026-01"``, a
    notebook's ``month`` setting); anything else stops a notebook's Run All in one line
    (`Stopped`) naming the setting and an example. With ``client``, a month that has not
    begun on the service's clock stops it too: its page would be empty charts and zeros
    with nothing to say why."""
    import calendar
    import re

    typed = month.strip() if isinstance(month, str) else ""
    found = re.fullmatch(r"([0-9]{4})-([0-9]{2})", typed)
    year, number = (0, 0) if found is None else (int(found.group(1)), int(found.group(2)))
    if year < 1 or not 1 <= number <= 12:
        raise Stopped(
            f"month must be a year and a month written yyyy-mm, like 2026-01, not {month!r}."
        )
    first = date(year, number, 1)
    if client is not None:
        from pixops.frames import service_now
        from pixops.widgets._format import BUSINESS_TZ

        today = service_now(client).astimezone(BUSINESS_TZ).date()
        if first > today:
            raise Stopped(
                f"month {typed} has not begun yet: today is {today:%d/%m/%Y} on"
                f" the service (São Paulo). Give a month up to {today:%Y-%m}."
            )
    return first, date(year, number, calendar.monthrange(year, number)[1])


def check_service(client: Client) -> None:
    """Stop a notebook's Run All at its first cell, with one plain line, when the service
    cannot be used (unreachable, credentials refused, access denied): every later cell
    would otherwise fail with a traceback of its own.

    One `GET /balance` (the cheapest call, outside the rate limit), only for a client on
    a real service; the demo month's sandbox is in process and needs no check.
    """
    from pixops.widgets._format import problem

    connection = connection_of(client)
    if connection is not None and connection.mode == "sandbox":
        return
    try:
        client.balance()
    except PixopsError as error:
        # The permission is checked last: a key that may not read the balance reached a
        # service that accepted it, which is all this asks (a MED desk's key, say).
        if getattr(error, "code", None) != "missing_permission":
            raise ServiceStopped(problem(error)) from None


def zone_hint(typed: str) -> str:
    """How to fix a time zone not understood: the zone meant, else an example."""
    from pixops.frames import zone_meant

    meant = zone_meant(typed)
    return f"did you mean {meant}?" if meant else "type it like America/Sao_Paulo."


def panel_heading(title: str, *, before: str = "") -> Any:
    """A panel's title with, under it, the zone of every time the panel shows ("Times
    are São Paulo time."): a support reader on another zone's clock reads 10:04 right.
    `before` goes first, unseen (a panel's own ``<style>``)."""
    import ipywidgets as w

    from pixops.widgets._format import BUSINESS_TZ, zone_text

    return w.HTML(
        f"{before}<h3 style='margin:4px 0 0'>{html.escape(title)}</h3>"
        "<div class='pixops-zone' style='color:#555;font-size:12px;margin:0 0 4px'>"
        f"Times are {zone_text(BUSINESS_TZ)}.</div>"
    )
