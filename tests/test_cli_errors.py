"""The `pixops` entry point on a bad environment: undecodable arguments, Ctrl-C, a
closed pipe. Each ends with its exit status and at most one line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pixops.cli import main

pytestmark = pytest.mark.timeout(60)

DATA = Path(__file__).resolve().parent.parent / "data"


def test_an_argument_that_is_not_utf8_exits_2_naming_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shell passes b"out\xff"; Python keeps the byte as a lone surrogate, which
    # pyarrow could not encode: a traceback after the whole run.
    out = tmp_path / "out\udcff"
    argv = ["recon", "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv")]
    assert main([*argv, "--out", str(out), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"pixops: the argument '{tmp_path}/out\\xff' is not UTF-8 text:"
        " retype it, or give the file a UTF-8 name\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_certificate_host_that_is_not_utf8_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dev-cert", "--out", str(tmp_path / "tls"), "--host", "a\udcff"]) == 2
    assert "'a\\xff' is not UTF-8 text" in capsys.readouterr().err
    assert not (tmp_path / "tls").exists()


def test_ctrl_c_during_a_run_exits_130_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pixops._cli_recon._run as recon_cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    monkeypatch.setattr(recon_cli, "reconcile_days", interrupted)
    out = tmp_path / "out"
    argv = ["recon", "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv")]
    assert main([*argv, "--out", str(out), "--quiet"]) == 130
    assert capsys.readouterr().err == "pixops recon: interrupted\n"
    assert not out.exists()


def test_a_closed_stdout_pipe_ends_quietly_with_141() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "pixops", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # `pixops demo | head -0`: the reader is gone
    _, err = process.communicate(timeout=60)
    assert process.returncode == 141
    assert err == b""
