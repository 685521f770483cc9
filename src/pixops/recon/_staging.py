"""Writing a set of result files all or nothing: into a hidden folder beside the
destination, then moved in together; a system refusal said in terms of the destination."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["destination", "staged_directory", "writing"]


@contextmanager
def staged_directory(directory: str | Path) -> Iterator[Path]:
    """A new folder beside ``directory`` to write into; when the block ends without an
    error its files are moved into ``directory`` (created if needed), and the folder is
    removed either way. A failed run leaves no partial set of results. A folder that
    cannot be written is an `OSError` of the same kind naming ``directory``."""
    out = destination(directory, "directory")
    with writing(out):
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        with writing(out):
            yield stage
            out.mkdir(exist_ok=True)
            blocked = [path.name for path in stage.iterdir() if (out / path.name).is_dir()]
            if blocked:
                raise IsADirectoryError(f"folders in the way in {out}: {sorted(blocked)}")
            with _uninterrupted():  # Ctrl-C or a scheduler's TERM waits for the last move
                for path in sorted(stage.iterdir()):
                    os.replace(path, out / path.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def destination(given: object, what: str) -> Path:
    """``given`` as a path whose folders, where they exist, are folders (mkdir and open
    say only "File exists" or "Not a directory" about a file on the way)."""
    if not isinstance(given, (str, os.PathLike)):
        raise TypeError(f"{what} must be a str or pathlib.Path, not {type(given).__name__}")
    out = Path(given)
    if out.exists() and not out.is_dir() and what == "directory":
        raise NotADirectoryError(f"not a directory: {out}")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"not a directory: {parent}, which {out} would be in")
            break
    return out


@contextmanager
def writing(out: Path) -> Iterator[None]:
    """An `OSError` from the system (it names a file: often the hidden staging folder)
    raised again, of the same kind, as what it means for ``out``."""
    try:
        yield
    except OSError as error:
        if error.filename is None:  # raised here, in words already
            raise
        reason = error.strerror or str(error)
        name = str(error.filename)
        where = "" if name.endswith(".partial") else f" ({name})"  # a staging name says nothing
        raise type(error)(
            f"cannot write in {out}: {reason}{where}; choose a folder you can write to"
        ) from error


@contextmanager
def _uninterrupted() -> Iterator[None]:
    """SIGINT and SIGTERM held back while the block runs, then raised again: the moves
    into the destination finish together, so an interrupted run never leaves half a new
    set. Python runs signal handlers in the main thread only, so only it can hold them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    before = {number: signal.signal(number, lambda n, _: caught.append(n)) for number in held}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        for arrived in dict.fromkeys(caught):
            signal.raise_signal(arrived)
