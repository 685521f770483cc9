"""`pixops notebooks init [DIR] [--update]` and `pixops --version` on the command line."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import pytest

from pixops import _bundled
from pixops._notebook_copies import MANIFEST_NAME
from pixops._version import __version__
from pixops.cli import main
from pixops.desk import ServerError
from pixops.desk._cli import lab_notebooks_dir


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"pixops {__version__}\n"


def test_init_copies_into_a_new_folder_and_says_how_to_open_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["notebooks", "init", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"copied into {tmp_path / 'work'}: data/ (4 files), notebooks/ (7 files)"
    assert out[1] == f"open them: cd {tmp_path / 'work'} && pixops lab"
    assert len(list((tmp_path / "work/notebooks").glob("*.ipynb"))) == 6


def test_init_defaults_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["notebooks", "init"]) == 0
    assert (tmp_path / MANIFEST_NAME).is_file()
    assert main(["notebooks", "init"]) == 0
    assert f"already holds the notebooks of pixops {__version__}" in capsys.readouterr().out


def test_update_lists_the_edited_notebooks_it_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["notebooks", "init", str(tmp_path)])
    notebook = tmp_path / "notebooks/04_refunds.ipynb"
    notebook.write_text(notebook.read_text() + " ")
    # As if an older pixops had copied the README: its recorded hash is what is there.
    readme = tmp_path / "notebooks/README.md"
    readme.write_text("an older README\n")
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    manifest["files"]["notebooks/README.md"] = hashlib.sha256(b"an older README\n").hexdigest()
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(manifest))
    capsys.readouterr()

    assert main(["notebooks", "init", str(tmp_path)]) == 0
    assert "`pixops notebooks init --update" in capsys.readouterr().out
    assert readme.read_text() == "an older README\n"

    assert main(["notebooks", "init", "--update", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"updated 1 file you had not edited to pixops {__version__}: notebooks/README.md" in out
    assert "left alone 1 file you edited: notebooks/04_refunds.ipynb" in out
    assert readme.read_bytes() == (_bundled.bundle_root() / "notebooks/README.md").read_bytes()


@pytest.mark.parametrize("kind", ["file", "foreign"])
def test_a_bad_folder_is_one_line_and_exit_2(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("x")
    else:
        target.mkdir()
        (target / "mine.ipynb").write_text("{}")
    assert main(["notebooks", "init", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("pixops notebooks: ")


def test_lab_in_an_empty_folder_copies_the_notebooks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_bundled, "is_checkout", lambda: False)  # as from a wheel
    found = lab_notebooks_dir(sys.stdout, tmp_path)
    assert found == tmp_path / "notebooks"
    assert "no notebooks folder in" in capsys.readouterr().out
    assert len(list(found.glob("*.ipynb"))) == 6
    assert lab_notebooks_dir(sys.stdout, tmp_path) == found  # the copy is opened next time
    assert capsys.readouterr().out == ""


def test_lab_where_notebooks_cannot_be_copied_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bundled, "is_checkout", lambda: False)
    (tmp_path / "theirs.ipynb").write_text("{}")
    with pytest.raises(ServerError, match=r"did not copy.*or pass --notebooks DIR"):
        lab_notebooks_dir(io.StringIO(), tmp_path)


def test_lab_from_the_checkout_opens_its_notebooks(tmp_path: Path) -> None:
    found = lab_notebooks_dir(io.StringIO(), tmp_path)
    assert found == Path(__file__).resolve().parents[1] / "notebooks"
    assert list(tmp_path.iterdir()) == []
