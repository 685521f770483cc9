"""Voilà as the desk runs it: the notebook without its cells tagged `notebook-only`.

Run as ``python -m pixops.desk._voila NOTEBOOK [voila options]``. Those cells are for
people who read the notebook (how it connects, a worked example on the demo month);
support staff on the desk get the panel alone.
"""

from __future__ import annotations

from typing import Any

from pixops._cells import shared_cells

__all__ = ["main", "without_notebook_only"]


def without_notebook_only(handler: Any, notebook: Any, cwd: str) -> Any:
    """Voilà's pre-launch hook: the notebook minus the cells tagged `notebook-only`."""
    notebook.cells = shared_cells(notebook.cells)
    return notebook


def main(argv: list[str] | None = None) -> None:
    """Start Voilà with the hook; the arguments are Voilà's own."""
    from traitlets.config import Config
    from voila.app import Voila  # type: ignore[import-untyped]

    config = Config()
    config.VoilaConfiguration.prelaunch_hook = without_notebook_only
    Voila.launch_instance(argv=argv, config=config)


if __name__ == "__main__":
    main()
