"""Which text encoding a CSV file is in: UTF-8, or the Windows-1252 that Excel in Brazil
writes when told to save a plain "CSV" (accents in a description, "ç" in a name).

Windows-1252 is tried only on a file that is not UTF-8, and only as a whole: a file with
a NUL byte (UTF-16, a spreadsheet's binary format) or a byte Windows-1252 leaves undefined
is neither, and says so.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Final

__all__ = [
    "SEPARATORS",
    "UTF8",
    "WINDOWS_1252",
    "csv_encoding",
    "csv_separator",
    "not_text_message",
]

#: UTF-8, a byte order mark at the start allowed (Excel's "CSV UTF-8" writes one).
UTF8: Final = "utf-8-sig"
WINDOWS_1252: Final = "cp1252"
_CHUNK: Final = 1 << 20
#: What a CSV file's fields may be separated by: a comma, or the semicolon a pt-BR Excel
#: writes (its decimal separator is the comma), or a tab.
SEPARATORS: Final = (",", ";", "\t")


def csv_separator(header: str) -> str:
    """The separator the header line uses most (a comma when it holds none)."""
    return max(SEPARATORS, key=header.count)


def csv_encoding(path: Path, given: str | None = None) -> str:
    """`UTF8` or `WINDOWS_1252`: ``given`` when the whole file decodes in it, else the
    encoding it does decode in, UTF-8 first.

    A file in neither raises a `UnicodeDecodeError` (callers word it with
    `not_text_message`): Windows-1252's, naming the byte it leaves undefined (0x81, 0x8d,
    0x8f, 0x90, 0x9d), when that is why; a file that is not UTF-8 for an accent of
    Windows-1252 (0xe0, "à") fails for the other byte. A NUL byte fails both.
    """
    if given is not None:
        _decodes(path, given)
        return given
    try:
        _decodes(path, UTF8)
    except UnicodeDecodeError as not_utf8:
        try:
            _decodes(path, WINDOWS_1252)
        except UnicodeDecodeError as not_1252:
            if not_1252.reason == "a NUL byte":
                raise not_utf8 from None
            raise
        return WINDOWS_1252
    return UTF8


def _decodes(path: Path, encoding: str) -> None:
    """Decode the file in chunks (nothing kept); a NUL byte counts as undecodable."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            nul = chunk.find(b"\x00")
            if nul >= 0:
                raise UnicodeDecodeError(encoding, chunk, nul, nul + 1, "a NUL byte")
            decoder.decode(chunk)
        decoder.decode(b"", final=True)


def not_text_message(path: Path, error: UnicodeDecodeError) -> str:
    """The words for a file in neither encoding, naming the byte that could not be read:
    one Windows-1252 leaves undefined, or else the first UTF-8 could not read."""
    byte = f"0x{error.object[error.start]:02x}"
    if "undefined" in error.reason:
        byte += ", which Windows-1252 leaves undefined"
    return (
        f"{path} is not UTF-8 or Windows-1252 text (it holds the byte {byte}):"
        " save it as 'CSV UTF-8'"
    )
