"""`pixops lab` and `pixops desk` from the command line: arguments, errors, what is printed."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pixops.cli import main
from pixops.desk import describe_source, nearest_dotenv, service_environment


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


def test_a_dotenv_file_names_its_service(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    named = describe_source({"PIXOPS_BASE_URL": "https://pix.example"}, dotenv)
    assert named == f"the real service at https://pix.example (PIXOPS_BASE_URL in {dotenv})"


def test_the_kernels_get_the_settings_of_the_nearest_dotenv(tmp_path: Path) -> None:
    """A `.env` at the repository root, where the README's commands run, reaches the
    kernels in notebooks/ (whose own `connect()` reads only `notebooks/.env`)."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / ".env").write_text(
        "PIXOPS_BASE_URL=https://pix.example\nPIXOPS_CLIENT_ID=cli_1\nOTHER=kept out\n"
    )
    env, origin = service_environment({"HOME": "/home/x"}, [tmp_path / "notebooks"])
    assert origin == (tmp_path / ".env").resolve()
    assert env == {
        "HOME": "/home/x",
        "PIXOPS_BASE_URL": "https://pix.example",
        "PIXOPS_CLIENT_ID": "cli_1",
    }
    assert nearest_dotenv(tmp_path / "notebooks") == origin


def test_the_environment_wins_over_a_dotenv(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("PIXOPS_BASE_URL=https://file.example\nPIXOPS_CLIENT_ID=f\n")
    env, origin = service_environment({"PIXOPS_BASE_URL": "https://env.example"}, [tmp_path])
    assert origin is None
    assert env["PIXOPS_BASE_URL"] == "https://env.example"
    assert env["PIXOPS_CLIENT_ID"] == "f"


def test_the_dotenv_beside_the_notebooks_comes_first(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / ".env").write_text("PIXOPS_BASE_URL=https://near.example\n")
    (tmp_path / ".env").write_text("PIXOPS_BASE_URL=https://far.example\nPIXOPS_CLIENT_ID=c\n")
    env, origin = service_environment({}, [notebooks, tmp_path])
    assert (env["PIXOPS_BASE_URL"], origin) == ("https://near.example", notebooks / ".env")
    assert env["PIXOPS_CLIENT_ID"] == "c"


def test_a_dotenv_that_is_not_text_stops_lab_with_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / ".env").write_bytes(b"PIXOPS_BASE_URL=\xff\xfe\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    assert main(["lab", "--notebooks", str(tmp_path / "notebooks")]) == 2
    assert f"{(tmp_path / '.env').resolve()} is not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["lab", "desk"])
def test_a_busy_port_is_refused_with_the_way_out(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another program on the port (often another JupyterLab on 8888) used to be taken
    for the new server: the URL printed was the other program's."""
    (tmp_path / "06_support_investigation.ipynb").write_text("{}")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = str(other.getsockname()[1])
        target = ["--notebooks", str(tmp_path)] if command == "lab" else ["--notebook"]
        if command == "desk":
            target.append(str(tmp_path / "06_support_investigation.ipynb"))
        assert main([command, *target, "--port", port]) == 1
    captured = capsys.readouterr()
    assert f"port {port} on 127.0.0.1 is already in use" in captured.err
    assert "--port 0" in captured.err
    assert "open:" not in captured.out
