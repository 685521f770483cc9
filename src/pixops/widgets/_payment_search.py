"""What the inspector and the refund panel find for text that is no identifier: a name, a
CPF/CNPJ, an amount, or (the inspector) an id with a typo.

A support person on the phone types what the customer says: part of a name (often without
its accents), a CPF read out digit by digit, an amount, or an id copied with a wrong
character. A name matches by the start of one of its words ("ana" finds Ana Costa, not
Mariana or Santana); only when no name has such a word do matches inside a word count.
Every payment counts, in or out, settled or refused (a customer calls most about the one
that failed); the refund panel keeps the settled payments received.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from pixops import money
from pixops.documents import is_valid_cnpj, is_valid_cpf
from pixops.schema import StatementItem
from pixops.widgets._api import MAX_MATCHES
from pixops.widgets._format import BUSINESS_TZ, count_text, plural
from pixops.widgets._reads import Row, cases_of, statement_items

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = [
    "MIN_NAME_CHARS",
    "PaymentMatches",
    "amount_in",
    "echo",
    "find_payments",
    "matches_note",
    "similar_case_ids",
    "similar_ids",
]

#: A name search needs this many letters: one or two match most of a month's payers.
MIN_NAME_CHARS: Final = 3
#: An id found by `similar_ids` differs from the typed one by at most this many characters.
MAX_TYPOS: Final = 2
_SHORT_NAME: Final = (
    "Type at least {n} letters of the name (or the whole CPF/CNPJ, or the amount, like"
    " R$ 13,22): {typed} would match most of the month's payers."
)
#: Digits this many or more (without a comma) are a CPF (11) or CNPJ (14) read out, not
#: an amount: R$ 100.000.000 would be typed with its centavos or "R$".
_DOCUMENT_LIKE: Final = 9
_WRONG_DIGITS: Final = (
    "{typed} has {n} digits: a CPF has 11 and a CNPJ 14. Check the number with the customer"
    " (an amount is typed with its centavos, like 1.500,00)."
)
#: A CPF as receipts print it (``***.388.371-**``): its middle six digits are known.
_MASKED_CPF: Final = re.compile(r"\*{3}\.?(\d{3})\.?(\d{3})-?\*{2}")
#: A transaction or end-to-end id: its minute (yyyyMMddHHmm, UTC) names the statement day.
#: Two characters looser at the end than `_api`'s exact shape: a typo may add or drop one.
_ID_SHAPE: Final = re.compile(
    r"(?:pix[a-z]{2,4})?[ed][0-9a-z]{8}(?P<minute>\d{12})[0-9a-z]{6,16}", re.IGNORECASE
)


R = TypeVar("R", bound=Row, covariant=True)


@dataclass(frozen=True)
class PaymentMatches(Generic[R]):
    """The payments a search matched: the newest `MAX_MATCHES`, how many matched in all,
    and whether the name was found only inside words (no word starts with the text)."""

    shown: Sequence[R] = field(default_factory=list)
    total: int = 0
    inside_words: bool = False

    @property
    def cut(self) -> bool:
        """More matched than the list holds: the search should be narrowed."""
        return self.total > len(self.shown)


def find_payments(
    client: Client,
    query: str,
    date_from: date | None,
    date_to: date | None,
    now: datetime,
    *,
    received_only: bool = False,
) -> PaymentMatches[StatementItem]:
    """Payments in or out between the dates whose amount (``R$ 12,34``), CPF/CNPJ or
    counterparty name matches `query`; a name needs `MIN_NAME_CHARS` letters (ValueError).
    ``received_only``: settled payments received, the ones a refund can return.

    The dates are São Paulo days, as the panels show every time: a payment at 23:24 on
    the 15th (02:24 UTC on the 16th) is the 15th's."""
    text = " ".join(query.split())
    if not text:
        raise ValueError("type a name, a CPF/CNPJ or an amount")
    if date_from is None or date_to is None:
        raise ValueError("choose the dates to search between")
    if date_from > date_to:
        raise ValueError("the first date is after the last one")
    amount = amount_in(text)
    digits = re.sub(r"[.\-/ ]", "", text)
    document = digits if digits.isdigit() and len(digits) in (11, 14) else None
    if digits.isdigit() and document is None and "," not in text and len(digits) >= _DOCUMENT_LIKE:
        # Too long for an amount typed without centavos: a CPF/CNPJ with a digit missed.
        raise ValueError(_WRONG_DIGITS.format(typed=f"“{text}”", n=len(digits)))
    if document is not None:
        _check_document(document, text)
    masked = _MASKED_CPF.fullmatch(text)
    if masked is not None:  # read off a receipt: any CPF with those middle digits
        document = masked[1] + masked[2]
    needle = _folded(text)
    if amount is None and document is None and len(needle.replace(" ", "")) < MIN_NAME_CHARS:
        raise ValueError(_SHORT_NAME.format(n=MIN_NAME_CHARS, typed=f"“{text}”"))
    by_word: list[StatementItem] = []
    inside: list[StatementItem] = []
    for row in _rows_of_local_days(client, date_from, date_to, now):  # newest first
        if received_only and not _settled_received(row):
            continue
        if document is not None:
            documents: tuple[str | None, ...] = (row.payer_document, row.recipient_document)
            if masked is not None:
                documents = tuple(str(d)[3:9] for d in documents if d and len(str(d)) == 11)
            if document in documents:
                by_word.append(row)
        elif amount is not None:
            if int(row.amount) == amount:
                by_word.append(row)
        else:
            name = _folded(row.counterparty_name or "")
            if f" {needle}" in f" {name}":
                by_word.append(row)
            elif needle in name:
                inside.append(row)
    found = by_word or inside
    return PaymentMatches(found[:MAX_MATCHES], len(found), not by_word and bool(inside))


def _check_document(digits: str, typed: str) -> None:
    """Refuse a CPF (11 digits) or CNPJ (14) whose check digits are wrong, as the service
    would: no payment can carry it, and "Nothing found" would send support looking for
    a payment instead of at the number."""
    kind, valid = ("CPF", is_valid_cpf) if len(digits) == 11 else ("CNPJ", is_valid_cnpj)
    if valid(digits):
        return
    if len(set(digits)) == 1:
        raise ValueError(f"“{typed}” is not a valid {kind}: no {kind} has all its digits equal.")
    raise ValueError(
        f"“{typed}” is not a valid {kind}: its check digits (the last two) do not match the"
        " others, so a digit was misheard or mistyped. Read the number back to the customer."
    )


def _rows_of_local_days(
    client: Client, first: date, last: date, now: datetime
) -> list[StatementItem]:
    """Statement rows created from `first` to `last`, São Paulo days, newest first (the
    statement is read by UTC days: those the São Paulo days overlap)."""
    start = datetime.combine(first, time(), BUSINESS_TZ).astimezone(UTC)
    end = datetime.combine(last + timedelta(days=1), time(), BUSINESS_TZ).astimezone(UTC)
    rows = statement_items(client, start.date(), (end - timedelta(microseconds=1)).date(), now)
    return [row for row in rows if first <= row.created_at.astimezone(BUSINESS_TZ).date() <= last]


def matches_note(matches: PaymentMatches[Row], typed: str, noun: str = "payment") -> str:
    """How many payments a name, document or amount search matched, and which are listed."""
    total = matches.total
    inside = (
        f" No name has a word that starts with {echo(typed)}: these have it inside a word."
        if matches.inside_words
        else ""
    )
    if total <= 1:
        return f"Found.{inside}"
    if not matches.cut:
        return f"Found. {plural(total, noun)} match; showing the newest.{inside}"
    return (
        f"Found. {plural(total, noun)} match; the list holds the newest "
        f"{count_text(MAX_MATCHES)}. Type more of the name, the CPF/CNPJ or the amount to "
        f"narrow it.{inside}"
    )


def echo(text: str, limit: int = 60) -> str:
    """What the person typed, quoted and cut to one line's worth."""
    shown = " ".join(text.split())
    return f"“{shown if len(shown) <= limit else shown[: limit - 1] + '…'}”"


def amount_in(text: str) -> int | None:
    """The amount a search means in base units, or None when it is not an amount."""
    if not re.fullmatch(r"-?(R\$)?\s*[0-9][0-9.,]*", text):
        return None
    try:
        return money.centavos_to_base(money.parse_centavos(text))
    except money.MoneyError:
        return None


def _settled_received(row: StatementItem) -> bool:
    return (
        row.direction == "inbound"
        and row.payment_status == "settled"
        and row.status in ("completed", "settled")
    )


def _folded(text: str) -> str:
    """Lower case without accents: "José" and "jose" are the same name on the phone."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def similar_ids(client: Client, typed: str, now: datetime) -> list[StatementItem]:
    """Statement rows whose transaction or end-to-end id differs from `typed` (an id
    shape) by at most `MAX_TYPOS` characters, letter case aside: an id read out over the
    phone or copied by hand. Only the day its minute names (and the days either side)
    is read; an id whose date itself is mistyped finds nothing."""
    shape = _ID_SHAPE.fullmatch(typed.strip())
    if shape is None:
        return []
    try:
        minute = datetime.strptime(shape["minute"], "%Y%m%d%H%M")
    except ValueError:
        return []
    day = minute.date()
    if day > now.date() + timedelta(days=1):
        return []
    wanted = typed.strip().casefold()
    found = []
    for row in statement_items(client, day - timedelta(days=1), day + timedelta(days=1), now):
        ids = (row.transaction_id, row.end_to_end_id or "")
        if any(_near(wanted, candidate.casefold()) for candidate in ids if candidate):
            found.append(row)
    return found[:3]


def similar_case_ids(client: Client, typed: str) -> list[str]:
    """The MED case ids that differ from `typed` (``med_…``) by at most `MAX_TYPOS`
    characters, letter case aside: a case id read out from the central bank's notice.
    Every case is read (a merchant has tens, not thousands)."""
    wanted = typed.strip().casefold()
    if not wanted.startswith("med_") or not hasattr(client, "med"):
        return []
    ids = [case.id for case in cases_of(client)]
    return [case_id for case_id in ids if _near(wanted, case_id.casefold())][:3]


def _near(a: str, b: str) -> bool:
    """True when `a` and `b` differ by 1 to `MAX_TYPOS` edits (a character changed,
    added or left out)."""
    if a == b or abs(len(a) - len(b)) > MAX_TYPOS:
        return False
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        if min(current) > MAX_TYPOS:
            return False
        previous = current
    return previous[-1] <= MAX_TYPOS
