"""Cells and files a spreadsheet opens: text that cannot run as a formula, money as exact
pt-BR numbers, and files written whole with the usual permissions.

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return, which it trims first) as a formula: a ledger reference such as
``=HYPERLINK(...)`` or ``+cmd|' /C calc'!A0`` would run when finance opens the file
(OWASP's "CSV injection"). Every text cell that would is written with a leading ``'``,
which makes it text. Money is not text: we write it from integers as ``-1.234,5678``
(digits, a pt-BR decimal comma, a leading minus when negative), which a spreadsheet in
Brazil reads as the number it is.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Final

from pixops.money import format_brl_base

__all__ = ["FILE_MODE", "atomic_text_file", "spreadsheet_money", "spreadsheet_text"]

#: What a spreadsheet reads as the start of a formula: OWASP's list (= + - @, tab, CR),
#: line feed, and their full-width forms (some spreadsheets fold them to ASCII).
_FORMULA_STARTS: Final = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
#: Read and written by the owner, read by the rest, less what the umask takes away: what
#: pandas and pyarrow give the other files of an export (a temporary file would be 0600).
FILE_MODE: Final = 0o666


def spreadsheet_text(text: str) -> str:
    """``text`` as a cell no spreadsheet runs as a formula: a leading ``'`` when it starts
    (or starts once leading spaces, tabs and line breaks are trimmed) with a formula sign."""
    trimmed = text.lstrip()
    if text[:1] in _FORMULA_STARTS or trimmed[:1] in _FORMULA_STARTS:
        return "'" + text
    return text


def spreadsheet_money(amount_base: int) -> str:
    """Base units as a pt-BR number cell (``1.234,56``, ``-0,1305``): the one rule's digits
    (`pixops.money.format_brl_base`) without ``R$``, so a spreadsheet sums them exactly."""
    return format_brl_base(amount_base).replace("R$ ", "")


@contextmanager
def atomic_text_file(target: Path, *, encoding: str) -> Iterator[IO[str]]:
    """A new file beside ``target``, renamed onto it once the block ends without an error
    (removed otherwise): a reader never sees half a file. Created with `FILE_MODE` less
    the umask, like every other file of an export."""
    partial = target.parent / f".{target.name}.{secrets.token_hex(4)}.partial"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(descriptor, "w", encoding=encoding, newline="") as handle:
            yield handle
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
