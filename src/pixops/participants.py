"""Institutions of the Brazilian payment system, by ISPB.

The packaged table (``_data/participants.csv``) lists Pix and STR participants.
It is read once, on first use, and kept in memory. ISPBs are matched as exact
8-character strings: ``"360305"`` is not ``"00360305"``.
"""

import csv
import io
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Participant", "all_participants", "bank_name", "lookup", "pix_participants"]

_FLAGS = {"Sim": True, "Não": False}


@dataclass(frozen=True)
class Participant:
    """One institution as listed by the central bank."""

    ispb: str
    """8-character institution code, e.g. ``"00000000"`` for Banco do Brasil."""
    short_name: str
    full_name: str
    cnpj: str | None
    """14-character CNPJ, or None where the list has none."""
    institution_type: str
    """The central bank's category, in Portuguese (e.g. ``"Banco Múltiplo"``)."""
    pix: bool
    """Whether it takes part in Pix."""
    str_participant: bool
    """Whether it takes part in STR (the reserve transfer system)."""


def lookup(ispb: str) -> Participant | None:
    """The participant with this ISPB, or None if it is not listed."""
    return _by_ispb().get(ispb)


def bank_name(ispb: str | None) -> str | None:
    """The short name of the institution with this ISPB; None if unknown or None."""
    if ispb is None:
        return None
    participant = lookup(ispb)
    return None if participant is None else participant.short_name


def all_participants() -> tuple[Participant, ...]:
    """Every listed institution, in the order of the table (by ISPB)."""
    return _load()


def pix_participants() -> tuple[Participant, ...]:
    """The institutions that take part in Pix."""
    return _pix()


@cache
def _load() -> tuple[Participant, ...]:
    text = (resources.files("pixops") / "_data" / "participants.csv").read_text("utf-8")
    return tuple(_participant(row) for row in csv.DictReader(io.StringIO(text)))


@cache
def _pix() -> tuple[Participant, ...]:
    return tuple(participant for participant in _load() if participant.pix)


@cache
def _by_ispb() -> dict[str, Participant]:
    return {participant.ispb: participant for participant in _load()}


def _participant(row: dict[str, str]) -> Participant:
    return Participant(
        ispb=row["ispb"],
        short_name=row["short_name"],
        full_name=row["full_name"],
        cnpj=row["cnpj"] or None,
        institution_type=row["institution_type"],
        pix=_flag(row, "pix"),
        str_participant=_flag(row, "str"),
    )


def _flag(row: dict[str, str], column: str) -> bool:
    try:
        return _FLAGS[row[column]]
    except KeyError:
        raise ValueError(f"participants.csv: {column}={row[column]!r} for {row['ispb']}") from None
