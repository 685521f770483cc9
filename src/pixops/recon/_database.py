"""One in-memory DuckDB database per process, a fresh connection (cursor) per use.

Opening a database costs ~20 ms of CPU (up to ~50 ms wall on a busy machine); a cursor
on an open one costs microseconds. Each cursor is its own connection: registered inputs
and temporary tables are private to it, and cursors may be used from several threads.
"""

from __future__ import annotations

import os
import threading

import duckdb

__all__ = ["cursor"]

_lock = threading.Lock()
_database: duckdb.DuckDBPyConnection | None = None
_owner_pid = 0


def cursor() -> duckdb.DuckDBPyConnection:
    """A new connection to this process's database (created on first use, and again in a
    forked child, which must not share its parent's)."""
    global _database, _owner_pid
    with _lock:
        if _database is None or _owner_pid != os.getpid():
            # Every output is sorted explicitly, so steps need not keep insertion order:
            # without it DuckDB materialises each step on all cores instead of one.
            # (The steps that group a million rows by row number turn on DuckDB's array
            # indexed by the number themselves: `pixops.recon._steps.run_steps`.)
            _database = duckdb.connect(config={"preserve_insertion_order": False})
            _owner_pid = os.getpid()
        return _database.cursor()
