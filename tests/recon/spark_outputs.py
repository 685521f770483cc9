"""What the Spark tests compare: the five outputs of a DuckDB run and a Spark run equal row
for row and type for type, every money column (`*_base`) int64 on both."""

from __future__ import annotations

import pandas as pd

from pixops.recon import ReconResult

FRAMES = ("matched", "discrepancies", "refunds", "rollforward", "summary")


def same_outputs(duck: ReconResult, on_spark: ReconResult) -> None:
    """Assert `on_spark`'s five frames are `duck`'s exactly, money int64 on both."""
    for name in FRAMES:
        left, right = getattr(duck, name), getattr(on_spark, name)
        assert list(right.dtypes) == list(left.dtypes), name
        pd.testing.assert_frame_equal(right, left, check_exact=True, obj=name)
        for column in left.columns:
            if str(column).endswith("_base"):
                assert str(left[column].dtype) == "int64[pyarrow]", (name, column)
