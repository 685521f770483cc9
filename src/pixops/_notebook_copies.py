"""A working copy of the shipped notebooks and sample data, in a folder the user owns.

`copy_notebooks(folder)` lays out ``folder/notebooks/`` and ``folder/data/`` as in the
checkout, so the notebooks' relative paths (``../data/sample_ledger.csv``) and the
README's commands (``pixops recon --ledger data/sample_ledger.csv``) work from
``folder``. It records the SHA-256 of every file it wrote in ``folder/.pixops-notebooks.json``:
a copy whose bytes still have that hash is unedited. Nothing the user changed is ever
overwritten; `update=True` (a later pixops) replaces only the unedited copies and lists
the edited ones it left alone.

Every check runs before the first write, and the files are written into a staging folder
on the same file system and then moved into place, so a refusal or a failed write leaves
nothing half-copied. Standard library only (`pixops lab` calls it before Jupyter starts).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pixops._bundled import BundleMissingError, bundle_root, bundled_files
from pixops._paths import output_folder_problem
from pixops._version import __version__
from pixops.errors import PixopsError

__all__ = ["MANIFEST_NAME", "CopyError", "CopyOutcome", "copy_notebooks"]

#: The record of what was copied, at the root of the user's folder.
MANIFEST_NAME: Final = ".pixops-notebooks.json"
_STAGING_PREFIX: Final = ".pixops-copying-"


class CopyError(PixopsError):
    """The notebooks cannot be copied there; nothing was written."""


@dataclass(frozen=True)
class CopyOutcome:
    """What `copy_notebooks` did, as paths relative to `folder`."""

    folder: Path
    #: Written because they were missing (a first copy, or a file new in this version).
    copied: tuple[str, ...] = ()
    #: Unedited copies replaced by this version's (`update=True` only).
    replaced: tuple[str, ...] = ()
    #: Copies the user edited, left as they are.
    kept_edited: tuple[str, ...] = ()
    #: Unedited copies of an older pixops that `update=True` would replace.
    outdated: tuple[str, ...] = ()
    #: The pixops version whose files the folder held before (None: a first copy).
    previous_version: str | None = field(default=None)


def copy_notebooks(
    folder: str | Path, *, update: bool = False, source: Path | None = None
) -> CopyOutcome:
    """Copy the shipped notebooks and sample data into `folder` (made if missing).

    Missing files are always written; a file the user edited never is. With `update`,
    the unedited copies an older pixops made are replaced by this version's. `source` is
    the bundle to copy from (default: the one this pixops ships). Raises `CopyError`,
    with nothing written, when `folder` is a file, is not writable, or holds notebooks
    pixops did not put there.
    """
    if not isinstance(folder, (str, Path)) or not str(folder).strip():
        raise CopyError(f"give a folder to copy the notebooks into, not {folder!r}")
    folder = Path(folder).expanduser()
    try:
        root = bundle_root() if source is None else source
    except BundleMissingError as error:
        raise CopyError(str(error)) from None
    names = list(bundled_files(root))
    problem = output_folder_problem(folder)
    if problem is not None:
        raise CopyError(f"{folder}: {problem}")
    for sub in (folder / "notebooks", folder / "data"):
        if sub.exists() and not sub.is_dir():
            raise CopyError(f"{sub} is a file, not a folder: choose another folder")
        if sub.is_dir() and not os.access(sub, os.W_OK | os.X_OK):
            raise CopyError(f"{sub} is not writable: choose a folder you can write to")
    recorded, previous_version = _read_manifest(folder)
    wanted = {name: _sha256(root / name) for name in names}
    if previous_version is None:
        _refuse_foreign_notebooks(folder, wanted)

    copied: list[str] = []
    replaced: list[str] = []
    kept: list[str] = []
    outdated: list[str] = []
    manifest = dict(recorded)
    for name, new_hash in wanted.items():
        target = folder / name
        if not target.is_file():
            copied.append(name)
            manifest[name] = new_hash
            continue
        current = _sha256(target)
        if current == new_hash:
            manifest[name] = new_hash
        elif recorded.get(name) == current:
            (replaced if update else outdated).append(name)
            if update:
                manifest[name] = new_hash
        elif name in recorded:
            kept.append(name)
        else:
            raise CopyError(
                f"{target} exists and is not a copy pixops made: move it away or"
                " choose another folder"
            )
    _write(folder, root, copied + replaced, manifest)
    return CopyOutcome(
        folder=folder,
        copied=tuple(copied),
        replaced=tuple(replaced),
        kept_edited=tuple(kept),
        outdated=tuple(outdated),
        previous_version=previous_version,
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_manifest(folder: Path) -> tuple[dict[str, str], str | None]:
    """The hashes pixops recorded in `folder` and the version that wrote them, or
    ``({}, None)`` for a folder pixops never copied into."""
    path = folder / MANIFEST_NAME
    if not path.exists():
        return {}, None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        files = document["files"]
        version = document["pixops"]
        if not isinstance(version, str) or not isinstance(files, dict):
            raise TypeError
        recorded = {str(name): str(digest) for name, digest in files.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        raise CopyError(
            f"{path} is not a record pixops wrote: remove it, or choose another folder"
        ) from None
    return recorded, version


def _refuse_foreign_notebooks(folder: Path, wanted: dict[str, str]) -> None:
    """A folder pixops never copied into must hold no notebook of someone else's."""
    for place in (folder, folder / "notebooks"):
        if not place.is_dir():
            continue
        for notebook in sorted(place.glob("*.ipynb")):
            name = notebook.relative_to(folder).as_posix()
            if wanted.get(name) != _sha256(notebook):
                raise CopyError(
                    f"{place} already holds notebooks pixops did not copy ({notebook.name}):"
                    " choose an empty or new folder"
                )


def _write(folder: Path, root: Path, names: list[str], manifest: dict[str, str]) -> None:
    """Stage `names` (from `root`) and the manifest, then move them into `folder`."""
    parent = folder if folder.is_dir() else _nearest_existing(folder)
    try:
        staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=parent))
    except OSError as error:
        raise CopyError(f"{folder}: cannot write there ({error.strerror})") from None
    try:
        tree = staging / "tree"
        for name in names:
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / name, tree / name)
        tree.mkdir(exist_ok=True)
        document = {"pixops": __version__, "files": dict(sorted(manifest.items()))}
        (tree / MANIFEST_NAME).write_text(json.dumps(document, indent=1) + "\n", "utf-8")
        if not folder.exists():
            folder.parent.mkdir(parents=True, exist_ok=True)
            tree.rename(folder)  # one step: the whole folder appears at once
            return
        for name in [*names, MANIFEST_NAME]:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(tree / name, folder / name)
    except OSError as error:
        raise CopyError(f"{folder}: cannot write there ({error.strerror or error})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _nearest_existing(path: Path) -> Path:
    for place in path.parents:
        if place.is_dir():
            return place
    return Path.cwd()
