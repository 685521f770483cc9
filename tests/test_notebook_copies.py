"""`pixops._notebook_copies`: a working copy of the shipped notebooks that never
overwrites an edit, and refuses bad folders before writing anything."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pixops import _notebook_copies
from pixops._bundled import bundle_root, bundled_files
from pixops._notebook_copies import MANIFEST_NAME, CopyError, copy_notebooks
from pixops._version import __version__


def bundle(root: Path, **changes: str) -> Path:
    """A shipped bundle in `root`: notebooks and data, with `changes` (name -> text,
    `/` spelt `__`) written over or added."""
    files = {
        "notebooks/01_quickstart.ipynb": '{"cells": []}',
        "notebooks/02_statement.ipynb": '{"cells": [1]}',
        "notebooks/README.md": "# notebooks\n",
        "data/README.md": "# data\n",
        "data/sample_ledger.csv": "id,amount_base\n1,100\n",
        "data/balances.csv": "as_of,balance_base\n",
    }
    files.update({name.replace("__", "/"): text for name, text in changes.items()})
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def tree(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): path.read_text()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_first_copy_lays_out_notebooks_and_data_and_records_them(tmp_path: Path) -> None:
    source = bundle(tmp_path / "v1")
    outcome = copy_notebooks(tmp_path / "work", source=source)
    copied = tree(tmp_path / "work")
    manifest = json.loads(copied.pop(MANIFEST_NAME))
    assert copied == tree(source)
    assert sorted(outcome.copied) == sorted(tree(source))
    assert (outcome.replaced, outcome.kept_edited, outcome.previous_version) == ((), (), None)
    assert manifest["pixops"] == __version__
    assert sorted(manifest["files"]) == sorted(tree(source))


def test_the_shipped_bundle_is_the_checkouts_notebooks_and_sample_data(tmp_path: Path) -> None:
    names = list(bundled_files())
    assert len([name for name in names if name.endswith(".ipynb")]) == 6
    assert {"data/sample_ledger.csv", "data/balances.csv", "notebooks/README.md"} <= set(names)
    copy_notebooks(tmp_path)
    for name in names:
        assert (tmp_path / name).read_bytes() == (bundle_root() / name).read_bytes()


def test_copying_again_writes_nothing_and_restores_a_deleted_file(tmp_path: Path) -> None:
    source = bundle(tmp_path / "v1")
    copy_notebooks(tmp_path / "work", source=source)
    again = copy_notebooks(tmp_path / "work", source=source)
    assert (again.copied, again.replaced, again.outdated) == ((), (), ())
    (tmp_path / "work/notebooks/02_statement.ipynb").unlink()
    restored = copy_notebooks(tmp_path / "work", source=source)
    assert restored.copied == ("notebooks/02_statement.ipynb",)


def test_an_update_replaces_unedited_copies_and_keeps_edited_ones(tmp_path: Path) -> None:
    copy_notebooks(tmp_path / "work", source=bundle(tmp_path / "v1"))
    edited = tmp_path / "work/notebooks/01_quickstart.ipynb"
    edited.write_text('{"cells": ["mine"]}')
    newer = bundle(
        tmp_path / "v2",
        **{
            "notebooks__01_quickstart.ipynb": '{"cells": ["v2"]}',
            "notebooks__02_statement.ipynb": '{"cells": ["v2"]}',
            "notebooks__07_new.ipynb": '{"cells": ["new"]}',
        },
    )

    plain = copy_notebooks(tmp_path / "work", source=newer)
    assert plain.outdated == ("notebooks/02_statement.ipynb",)
    assert plain.kept_edited == ("notebooks/01_quickstart.ipynb",)
    assert plain.copied == ("notebooks/07_new.ipynb",)
    assert (tmp_path / "work/notebooks/02_statement.ipynb").read_text() == '{"cells": [1]}'

    update = copy_notebooks(tmp_path / "work", update=True, source=newer)
    assert update.replaced == ("notebooks/02_statement.ipynb",)
    assert update.kept_edited == ("notebooks/01_quickstart.ipynb",)
    assert edited.read_text() == '{"cells": ["mine"]}'
    assert (tmp_path / "work/notebooks/02_statement.ipynb").read_text() == '{"cells": ["v2"]}'
    # Still edited for the next version too: its recorded hash is the one pixops wrote.
    again = copy_notebooks(tmp_path / "work", update=True, source=newer)
    assert again.kept_edited == ("notebooks/01_quickstart.ipynb",)
    assert again.replaced == ()


@pytest.mark.parametrize("where", ["", "notebooks/"])
def test_a_folder_with_someone_elses_notebooks_is_refused(tmp_path: Path, where: str) -> None:
    (tmp_path / "work" / where).mkdir(parents=True)
    (tmp_path / "work" / where / "analysis.ipynb").write_text("{}")
    before = tree(tmp_path / "work")
    with pytest.raises(CopyError, match="holds notebooks pixops did not copy"):
        copy_notebooks(tmp_path / "work", source=bundle(tmp_path / "v1"))
    assert tree(tmp_path / "work") == before


def test_a_file_pixops_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "work/data").mkdir(parents=True)
    (tmp_path / "work/data/sample_ledger.csv").write_text("my own books\n")
    with pytest.raises(CopyError, match=r"sample_ledger.csv exists and is not a copy pixops"):
        copy_notebooks(tmp_path / "work", source=bundle(tmp_path / "v1"))
    assert tree(tmp_path / "work") == {"data/sample_ledger.csv": "my own books\n"}


def test_a_file_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(CopyError, match="is a file, not a folder"):
        copy_notebooks(tmp_path / "file", source=bundle(tmp_path / "v1"))
    with pytest.raises(CopyError, match="is under a file"):
        copy_notebooks(tmp_path / "file" / "below", source=bundle(tmp_path / "v1"))


def test_a_read_only_folder_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = bundle(tmp_path / "v1")
    (tmp_path / "locked").mkdir()
    real_access = os.access

    def denied(path: object, mode: int) -> bool:
        locked = Path(str(path)) == tmp_path / "locked" and mode & os.W_OK
        return False if locked else real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", denied)
    with pytest.raises(CopyError, match="locked is not writable"):
        copy_notebooks(tmp_path / "locked", source=source)
    with pytest.raises(CopyError, match="locked is not writable"):
        copy_notebooks(tmp_path / "locked" / "new", source=source)
    assert list((tmp_path / "locked").iterdir()) == []


@pytest.mark.parametrize("exists", [False, True])
def test_a_write_that_fails_half_way_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exists: bool
) -> None:
    source = bundle(tmp_path / "v1")
    folder = tmp_path / "work"
    if exists:
        folder.mkdir()
    calls = []
    real_copy = shutil.copyfile

    def full_disk(src: Path, dst: Path) -> object:
        calls.append(src)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_copy(src, dst)

    monkeypatch.setattr(_notebook_copies.shutil, "copyfile", full_disk)
    with pytest.raises(CopyError, match="No space left on device"):
        copy_notebooks(folder, source=source)
    assert not folder.exists() or list(folder.iterdir()) == []
    assert [path.name for path in tmp_path.iterdir()] == sorted(
        ["v1", *(["work"] if exists else [])]
    )


def test_a_damaged_record_is_refused(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / MANIFEST_NAME).write_text("not json")
    with pytest.raises(CopyError, match="is not a record pixops wrote"):
        copy_notebooks(tmp_path / "work", source=bundle(tmp_path / "v1"))


@pytest.mark.parametrize("folder", ["", "  ", 3, None])
def test_no_folder_is_refused(folder: object) -> None:
    with pytest.raises(CopyError, match="give a folder"):
        copy_notebooks(folder)  # type: ignore[arg-type]
