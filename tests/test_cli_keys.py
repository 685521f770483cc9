"""`pixops keys issue|list|revoke --db PATH` on a server database: the first issue as a
subprocess (the command a user types, its own process writing the file), the rest through
`main(argv)` in this process, the function that command calls (~0.9 s of CPU less each)."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pixops.cli import main
from pixops.engine.adapters import EngineTransport
from pixops.engine.clock import WallClock
from pixops.engine.core import Engine
from pixops.engine.store import Store
from pixops.server import (
    DemoCredentials,
    PixopsServer,
    ServeOptions,
    build_engine,
    seed_demo_merchant,
)

pytestmark = pytest.mark.timeout(60)


def keys_subprocess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pixops", "keys", *args],
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.fixture
def keys(capsys: pytest.CaptureFixture[str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`pixops keys …` in this process (faster), with the same result shape as a subprocess."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        try:
            code = main(["keys", *args])
        except SystemExit as exit_info:
            code = int(exit_info.code or 0)
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, captured.out, captured.err)

    return run


Keys = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, DemoCredentials]:
    """A database as `pixops serve --db` leaves it: the demo merchant and its key."""
    db = tmp_path / "pix.db"
    engine = build_engine(ServeOptions(port=0, db=db))
    credentials = seed_demo_merchant(engine)
    assert credentials is not None
    engine.store.close()
    return db, credentials


def balance_status(db: Path, client_id: str, client_secret: str) -> httpx.Response:
    engine = Engine(store=Store(db), clock=WallClock(), seed=None)
    try:
        with httpx.Client(transport=EngineTransport(engine), base_url="http://s") as client:
            return client.get(
                "/api/external/balance",
                headers={"authorization": f"ApiKey {client_id}:{client_secret}"},
            )
    finally:
        engine.store.close()


def issued_credentials(out: str) -> tuple[str, str]:
    found = re.search(r"client_id:\s+(cli_\S+)\nclient_secret:\s+(sk_\S+)", out)
    assert found is not None, out
    return found.group(1), found.group(2)


def test_issue_list_and_revoke_on_an_existing_database(
    database: tuple[Path, DemoCredentials], keys: Keys
) -> None:
    db, demo = database
    issued = keys_subprocess(
        "issue", "--db", str(db), "--permission", "account:read", "--ip", "127.0.0.1"
    )
    assert issued.returncode == 0, issued.stderr
    client_id, client_secret = issued_credentials(issued.stdout)
    assert "export PIXOPS_CLIENT_ID=" in issued.stdout
    assert balance_status(db, client_id, client_secret).status_code == 200

    listed = keys("list", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert demo.client_id in listed.stdout
    assert client_id in listed.stdout
    assert client_secret not in listed.stdout
    assert demo.client_secret not in listed.stdout

    revoked = keys("revoke", "--db", str(db), client_id)
    assert revoked.returncode == 0, revoked.stderr
    refused = balance_status(db, client_id, client_secret)
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == "API key is inactive"
    assert re.search(rf"{client_id}\s+revoked", keys("list", "--db", str(db)).stdout)
    assert balance_status(db, demo.client_id, demo.client_secret).status_code == 200


def test_a_new_merchant_then_the_merchant_must_be_named(
    database: tuple[Path, DemoCredentials], keys: Keys
) -> None:
    db, demo = database
    created = keys("issue", "--db", str(db), "--new-merchant", "Loja Nova")
    assert created.returncode == 0, created.stderr
    assert "(Loja Nova)" in created.stdout
    ambiguous = keys("issue", "--db", str(db))
    assert ambiguous.returncode == 1
    assert "say --merchant ID or --new-merchant NAME" in ambiguous.stderr
    named = keys("issue", "--db", str(db), "--merchant", demo.merchant_id)
    assert named.returncode == 0, named.stderr
    only = keys("list", "--db", str(db), "--merchant", demo.merchant_id)
    assert "Loja Nova" not in only.stdout
    assert only.stdout.count("cli_") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("revoke", "cli_nobody"), "no API key"),
        (("issue", "--merchant", "mer_nobody"), "no merchant"),
        (("issue", "--permission", "root"), "unknown permissions"),
    ],
)
def test_refusals_exit_1_and_change_nothing(
    database: tuple[Path, DemoCredentials], keys: Keys, args: tuple[str, ...], message: str
) -> None:
    db, _ = database
    before = keys("list", "--db", str(db)).stdout
    result = keys(*args[:1], "--db", str(db), *args[1:])
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert keys("list", "--db", str(db)).stdout == before


def test_a_missing_database_is_not_created(tmp_path: Path, keys: Keys) -> None:
    result = keys("list", "--db", str(tmp_path / "none.db"))
    assert result.returncode == 1
    assert "no database at" in result.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_foreign_sqlite_file_is_left_alone(tmp_path: Path, keys: Keys) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    result = keys("issue", "--db", str(other))
    assert result.returncode == 1
    assert "is not a pixops database" in result.stderr
    with sqlite3.connect(other) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master")]
    conn.close()
    assert tables == ["notes"]


def test_a_file_that_is_not_sqlite(tmp_path: Path, keys: Keys) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    result = keys("list", "--db", str(junk))
    assert result.returncode == 1
    assert "not a SQLite database" in result.stderr


def test_bad_arguments_exit_2(keys: Keys) -> None:
    assert keys("issue").returncode == 2
    assert keys("rotate", "--db", "x").returncode == 2
    expiry = keys("issue", "--db", "x", "--expires-at", "2026-12-31")
    assert expiry.returncode == 2
    assert "UTC offset" in expiry.stderr


def test_a_key_issued_while_the_server_runs_works_at_once(tmp_path: Path, keys: Keys) -> None:

    db = tmp_path / "live.db"
    options = ServeOptions(port=0, db=db)
    engine = build_engine(options)
    assert seed_demo_merchant(engine) is not None
    with PixopsServer(engine, options) as server:
        issued = keys("issue", "--db", str(db))
        assert issued.returncode == 0, issued.stderr
        client_id, client_secret = issued_credentials(issued.stdout)
        answer = httpx.get(
            server.base_url + "/api/external/balance",
            headers={"authorization": f"ApiKey {client_id}:{client_secret}"},
            timeout=10,
        )
        assert answer.status_code == 200
        assert keys("revoke", "--db", str(db), client_id).returncode == 0
        refused = httpx.get(
            server.base_url + "/api/external/balance",
            headers={"authorization": f"ApiKey {client_id}:{client_secret}"},
            timeout=10,
        )
        assert refused.status_code == 401
