"""benchmarks/bench_engine.py: its child servers start, answer and end without a traceback."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_engine.py"
pytestmark = pytest.mark.timeout(90)


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_engine", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("app", ["engine", "hello"])
def test_a_child_server_ends_on_sigterm_without_a_traceback(app: str) -> None:
    child = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--child", app, "--http", "h11"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        port = json.loads(child.stdout.readline())["port"]
        # The engine serves its document there; the hello app answers every path alike.
        answer = httpx.get(f"http://127.0.0.1:{port}/api/external/openapi.json", timeout=10)
        assert answer.status_code == 200
    finally:
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=20)
    assert "Traceback" not in err, err
    assert child.returncode in (0, -signal.SIGTERM)


def test_the_script_stops_its_servers() -> None:
    bench = load_script()
    server = bench.ServerProcess("hello", "h11")
    assert server.process.poll() is None
    server.stop()
    assert server.process.poll() is not None
