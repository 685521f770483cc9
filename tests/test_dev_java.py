"""`.ci/dev.py test` and Java for the Spark tests: installed when missing and root,
otherwise the way to leave the Spark tests out is named."""

from __future__ import annotations

import pytest

from tests.test_packaging import load_dev_script


def test_without_java_and_not_root_the_way_out_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = load_dev_script()
    monkeypatch.setattr(dev.shutil, "which", lambda name: None)
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    with pytest.raises(SystemExit) as stopped:
        dev.ensure_java()
    said = str(stopped.value.code)
    assert "apt-get install openjdk-17-jre-headless" in said
    assert "--no-spark" in said
    assert "PIXOPS_SKIP_SPARK=1" in said


def test_as_root_java_is_installed_with_apt_get(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = load_dev_script()
    calls: list[list[str]] = []
    monkeypatch.setattr(
        dev.shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None
    )
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)

    class Done:
        returncode = 0

    def fake_run(command: list[str], **_: object) -> Done:
        calls.append(command)
        return Done()

    monkeypatch.setattr(dev.subprocess, "run", fake_run)
    dev.ensure_java()
    assert calls[-1][-1] == "openjdk-17-jre-headless"
    assert calls[0][:2] == ["apt-get", "update"]


def test_no_spark_deselects_the_spark_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = load_dev_script()
    seen: list[object] = []
    monkeypatch.setattr(dev, "ensure_chromium", lambda: None)
    monkeypatch.setattr(dev, "ensure_java", lambda: seen.append("java"))
    monkeypatch.setattr(dev, "run", lambda command: seen.append(command))
    # dev.test sets the variable for the pytest it starts: in a copy of the environment
    # here, put back after the test (it must not deselect the rest of this run).
    environment = {k: v for k, v in dev.os.environ.items() if k != "PIXOPS_SKIP_SPARK"}
    monkeypatch.setattr(dev.os, "environ", environment)
    dev.test("python", ["--no-spark", "-k", "x"])
    assert "java" not in seen
    assert environment["PIXOPS_SKIP_SPARK"] == "1"
    assert all("--no-spark" not in command for command in seen)


def test_the_test_command_keeps_bytecode_in_the_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    # PYTHONDONTWRITEBYTECODE (set on some CI images) made every pytest worker rewrite
    # every test module's asserts again; the cache goes to .venv, not into the clone.
    dev = load_dev_script()
    monkeypatch.setattr(dev, "ensure_chromium", lambda: None)
    monkeypatch.setattr(dev, "ensure_java", lambda: None)
    monkeypatch.setattr(dev, "run", lambda command: None)
    environment = {
        **{k: v for k, v in dev.os.environ.items() if k != "PYTHONPYCACHEPREFIX"},
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    monkeypatch.setattr(dev.os, "environ", environment)
    dev.test("python", [])
    assert "PYTHONDONTWRITEBYTECODE" not in environment
    assert environment["PYTHONPYCACHEPREFIX"] == str(dev.VENV / "pycache")
