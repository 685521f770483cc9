"""Paths a user names (on the `pixops` command line, to `LocalStore`), checked before
anything is read or written.

Each check returns what is wrong, to be printed after the flag and the path
(``f"--out {path}: {problem}"``), or None. A run that fetches a month from the
service and only then fails to write, or writes half its results, is what they prevent:
the commands call them before reading anything. A primitive (the standard library
only): the data layers and the commands both use it, and registering a command stays
cheap.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["input_file_problem", "output_file_problem", "output_folder_problem"]


def input_file_problem(path: Path) -> str | None:
    """A file to read: it exists and is a file (a folder used to read "no such file")."""
    if path.is_file():
        return None
    if path.is_dir():
        return "is a folder, not a file: give the file in it"
    return "no such file"


def output_folder_problem(path: Path) -> str | None:
    """A folder to write into (made with its parents when missing): no file in the way,
    and the nearest folder that exists is writable."""
    return _writable_place(path, is_folder=True)


def output_file_problem(path: Path, example: str = "report.html") -> str | None:
    """A file to write (its missing folders made): not a folder, not under a file, and
    the nearest folder that exists is writable. `example` names a file in the folder."""
    if path.is_dir():
        return f"is a folder, not a file: give a file name, such as {path / example}"
    return _writable_place(path, is_folder=False)


def _writable_place(path: Path, *, is_folder: bool) -> str | None:
    for place in (path, *path.parents) if is_folder else path.parents:
        if not place.exists():
            continue
        if not place.is_dir():
            if place == path:
                return "is a file, not a folder: give a folder"
            return f"is under a file ({place}): give a folder"
        if not os.access(place, os.W_OK | os.X_OK):
            return f"{place} is not writable: choose a folder you can write to"
        return None
    return None
