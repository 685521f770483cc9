"""Storage faults under `pixops serve`: the disk fills up mid-run, then space returns;
the database's filesystem is read-only.

The database lives on a 4 MiB tmpfs mounted for the test (the suite runs as root here);
a filler file takes the remaining space. Every write must then be refused with a
503-class answer that says why and leaks nothing, nothing may be half-written, reads
keep working, and the service must recover on its own once the filler is removed.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stress._harness import (
    SETTLING_KEY,
    ServerProcess,
    file_violations,
    get,
    http_client,
    integrity,
    leaks,
    open_readonly,
    post,
    seed_merchant,
)

WRITES_WHILE_FULL = 300


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mount_point)],
        check=True,
        capture_output=True,
    )
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False, capture_output=True)


def fill(path: Path) -> None:
    """Write zeros until the filesystem says ENOSPC."""
    with path.open("wb") as handle:
        chunk = b"\0" * 65_536
        with contextlib.suppress(OSError):
            while True:
                handle.write(chunk)
                handle.flush()


def test_disk_full_is_a_clear_503_writes_nothing_and_recovers(small_disk: Path) -> None:
    db = small_disk / "pix.db"
    seeded = seed_merchant(db, balance_centavos=10_000_000)
    credentials = seeded.credentials
    server = ServerProcess(db).start()
    filler = small_disk / "filler"
    try:
        with http_client(server.base_url) as client:
            fill(filler)
            answers: list[tuple[str, int, str]] = []
            for number in range(WRITES_WHILE_FULL):
                payload = {
                    "amount": 100 + number,
                    "pix_key": SETTLING_KEY,
                    "external_id": f"full-{number}",
                    "description": "d" * 140,
                }
                response = post(client, "/pix/cash-out", payload, credentials)
                answers.append((f"full-{number}", response.status_code, response.text))
            statuses = Counter(status for _, status, _ in answers)
            assert set(statuses) <= {202, 503}, statuses
            assert statuses[503] > 0, "a full disk must show"
            for _, status, text in answers:
                if status == 503:
                    body = json.loads(text)
                    assert body["error"]["status"] == 503
                    assert leaks(text, (credentials.client_secret,)) == []
            balance = get(client, "/balance", credentials)
            assert balance.status_code in (200, 503)

            filler.unlink()
            recovered = post(
                client,
                "/pix/cash-out",
                {"amount": 99_999, "pix_key": SETTLING_KEY, "external_id": "after-space"},
                credentials,
            )
            assert recovered.status_code == 202, recovered.text
    finally:
        server.stop()
        filler.unlink(missing_ok=True)

    conn = open_readonly(db)
    try:
        stored = {
            row[0]
            for row in conn.execute(
                "SELECT external_id FROM transactions WHERE external_id IS NOT NULL"
            )
        }
    finally:
        conn.close()
    for external_id, status, _ in answers:
        if status == 202:
            assert external_id in stored, "an acknowledged write was lost"
        else:
            assert external_id not in stored, "a refused write left a row behind"
    assert "after-space" in stored
    assert integrity(db) == "ok"
    assert file_violations(db) == []


def remount(mount_point: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(mount_point)], check=True)


def test_a_read_only_database_refuses_writes_with_503_and_serves_reads(small_disk: Path) -> None:
    """Linux refuses to remount a filesystem read-only while a file on it is open for
    writing (EBUSY), so the server is stopped, the disk made read-only, and the server
    started again on it: the state an operator meets after a disk error remount."""
    db = small_disk / "pix.db"
    credentials = seed_merchant(db, balance_centavos=100_000).credentials
    ServerProcess(db).start().stop()
    remount(small_disk, "ro")
    try:
        server = ServerProcess(db).start()
        try:
            with http_client(server.base_url) as client:
                balance = get(client, "/balance", credentials)
                assert balance.status_code == 200, balance.text
                payload = {"amount": 100, "pix_key": SETTLING_KEY, "external_id": "ro-1"}
                refused = post(client, "/pix/cash-out", payload, credentials)
                assert refused.status_code == 503, refused.text
                assert refused.json()["error"]["status"] == 503
                assert refused.headers.get("retry-after")
                assert leaks(refused.text, (credentials.client_secret,)) == []
        finally:
            server.stop()
    finally:
        remount(small_disk, "rw")
    server = ServerProcess(db).start()
    try:
        with http_client(server.base_url) as client:
            payload = {"amount": 101, "pix_key": SETTLING_KEY, "external_id": "rw-1"}
            accepted = post(client, "/pix/cash-out", payload, credentials)
            assert accepted.status_code == 202, accepted.text
    finally:
        server.stop()
    conn = open_readonly(db)
    try:
        stored = {row[0] for row in conn.execute("SELECT external_id FROM transactions")}
    finally:
        conn.close()
    assert "ro-1" not in stored
    assert "rw-1" in stored
    assert integrity(db) == "ok"
    assert file_violations(db) == []
