"""`pixops lab` and `pixops desk` from the command line: arguments, errors, what is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.cli import main
from pixops.desk import describe_source


@pytest.mark.parametrize("command", ["lab", "desk"])
@pytest.mark.parametrize("port", ["x", "-1", "70000"])
def test_a_bad_port_is_an_argument_error(command: str, port: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--port", port])
    assert stopped.value.code == 2


def test_lab_on_a_missing_folder_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lab", "--notebooks", str(tmp_path / "nope")]) == 2
    assert "no such notebooks folder" in capsys.readouterr().err


def test_desk_on_a_missing_notebook_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["desk", "--notebook", str(tmp_path / "nope.ipynb")]) == 2
    assert "no such notebook" in capsys.readouterr().err


def test_the_data_source_is_named() -> None:
    assert "sandbox" in describe_source({})
    assert "sandbox" in describe_source({"PIXOPS_BASE_URL": "  "})
    named = describe_source({"PIXOPS_BASE_URL": "https://pix.example/api"})
    assert named == "the real service at https://pix.example/api (PIXOPS_BASE_URL)"
