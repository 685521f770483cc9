"""Which cells of a notebook a page shows: the offline report (`pixops.report`) and the
Voilà desk (`pixops.desk`) leave out the same ones. A primitive (nothing imported), so
neither of those two packages has to import the other for it."""

from __future__ import annotations

from typing import Any

__all__ = ["NOTEBOOK_ONLY_TAG", "shared_cells"]

#: A cell with this tag is left out of the page: what only makes sense in a live notebook
#: (controls that need a kernel, how to connect, what to explore next).
NOTEBOOK_ONLY_TAG = "notebook-only"


def shared_cells(cells: list[Any]) -> list[Any]:
    """The cells a page shows (a report, the desk): those not tagged `NOTEBOOK_ONLY_TAG`."""
    return [
        cell for cell in cells if NOTEBOOK_ONLY_TAG not in cell.get("metadata", {}).get("tags", [])
    ]
