"""The result of a reconciliation on Spark: its frames stay on the cluster."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pandas as pd
import pyarrow as pa
from pyspark.sql import DataFrame

from pixops.frames import STATEMENT_SCHEMA, to_frame
from pixops.recon._categories import ATTENTION_CATEGORIES, CATEGORIES
from pixops.recon._inputs import LEDGER_SCHEMA
from pixops.recon._reading import LedgerReading
from pixops.recon._result import ReconResult
from pixops.recon._tolerances import Tolerances

__all__ = ["FRAMES", "SparkReconResult"]

FRAMES = ("matched", "discrepancies", "refunds", "rollforward", "summary")


@dataclass(frozen=True)
class SparkReconResult:
    """The frames of one run as Spark DataFrames (columns as in `ReconResult`)."""

    matched: DataFrame
    discrepancies: DataFrame
    refunds: DataFrame
    rollforward: DataFrame
    summary: DataFrame
    first_day: date | None
    last_day: date | None
    tz: str
    #: How the ledger was read (`pixops.recon.LedgerReading`), as `ReconResult` has it.
    ledger_reading: LedgerReading | None = None
    #: The tolerances the rules ran with (`pixops.recon.Tolerances`).
    tolerances: Tolerances = field(default_factory=Tolerances)

    @functools.cached_property
    def counts(self) -> dict[str, int]:
        """Items per category, every category present (zero when clean), as
        `ReconResult.counts` (the summary's few rows collected)."""
        rows = self.summary.select("category", "items").collect()
        found = {str(row["category"]): int(row["items"]) for row in rows}
        return {category: found.get(category, 0) for category in CATEGORIES}

    @property
    def needs_attention(self) -> bool:
        """True when any category other than ``matched`` has an item."""
        return any(self.counts[category] for category in ATTENTION_CATEGORIES)

    def frames(self) -> dict[str, DataFrame]:
        return {name: getattr(self, name) for name in FRAMES}

    def write(self, directory: str | Path) -> list[str]:
        """Each frame as Parquet, ``<directory>/<name>.parquet`` (a folder of parts, as
        Spark writes; pandas and pyarrow read it as one table), replacing an earlier
        run's. ``directory`` may be any URI the cluster writes (``s3a://``, ``abfss://``)."""
        base = str(directory).rstrip("/")
        written = []
        for name, frame in self.frames().items():
            path = f"{base}/{name}.parquet"
            frame.write.mode("overwrite").parquet(path)
            written.append(path)
        return written

    def to_result(self) -> ReconResult:
        """Everything collected to the driver as the `ReconResult` the DuckDB host
        returns, the same columns and types (money ``int64``), for data that fits."""
        schemas = _duckdb_schemas()
        frames = {
            name: to_frame(_as_schema(frame.toArrow(), schemas[name]))
            for name, frame in self.frames().items()
        }
        return self._local(frames)

    def summary_text(self) -> str:
        """`ReconResult.summary_text`, from the summary and the roll-forward alone."""
        schemas = _duckdb_schemas()
        small = {
            name: to_frame(
                _as_schema(frame.toArrow(), schemas[name])
                if name in ("summary", "rollforward")
                else schemas[name].empty_table()
            )
            for name, frame in self.frames().items()
        }
        digest = self._local(small)
        return digest.summary_text()

    def _local(self, frames: dict[str, pd.DataFrame]) -> ReconResult:
        return ReconResult(
            matched=frames["matched"],
            discrepancies=frames["discrepancies"],
            refunds=frames["refunds"],
            rollforward=frames["rollforward"],
            summary=frames["summary"],
            first_day=self.first_day,
            last_day=self.last_day,
            tz=self.tz,
            ledger_reading=self.ledger_reading,
            tolerances=self.tolerances,
        )

    def __repr__(self) -> str:
        period = (
            "of the rows given"
            if self.first_day is None or self.last_day is None
            else f"{self.first_day}..{self.last_day}"
        )
        return f"<SparkReconResult {period} ({self.tz}): frames on the cluster>"


def _as_schema(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Spark's Arrow (large strings, INT counts) cast to the DuckDB host's types."""
    if table.column_names != schema.names:
        raise ValueError(f"Spark gave columns {table.column_names}, the DuckDB host {schema.names}")
    return table.cast(schema)


@functools.cache
def _duckdb_schemas() -> dict[str, pa.Schema]:
    """The outputs' Arrow types as the DuckDB host gives them (a run on no rows, ~0.1 s),
    so the two hosts' results compare equal, whatever the steps become."""
    from pixops.recon._run import reconcile

    empty = reconcile(STATEMENT_SCHEMA.empty_table(), LEDGER_SCHEMA.empty_table())
    return {
        name: pa.Schema.from_pandas(frame, preserve_index=False)
        for name, frame in empty.frames().items()
    }
