"""Run a notebook headless with papermill, the way a scheduler would."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pixops.report._errors import ReportError, ServiceUnreachableError

#: Figures carry both the plotly JSON (for JupyterLab) and HTML with plotly.js inlined
#: (for the static page).
PLOTLY_RENDERER = "plotly_mimetype+notebook"
_PARAMETER_TYPES = (str, int, bool)


def declared_parameters(notebook: Path) -> set[str]:
    """The names assigned in the notebook's cell tagged `parameters`."""
    import nbformat
    import papermill

    if not isinstance(notebook, (str, Path)) or not Path(notebook).is_file():
        raise ReportError(f"no such notebook: {notebook}")
    try:
        found: dict[str, Any] = papermill.inspect_notebook(str(notebook))
    except (ValueError, KeyError, TypeError, AttributeError, nbformat.ValidationError) as error:
        # Not UTF-8, not JSON, or JSON that is no notebook (papermill leaks each as is).
        raise ReportError(f"{notebook} is not a readable notebook: {error}") from None
    return set(found)


def execute_notebook(
    notebook: Path,
    parameters: Mapping[str, str | int | bool],
    *,
    timeout_seconds: int = 300,
) -> Any:
    """The executed notebook (an `nbformat` node), run in its own folder on a fresh kernel.

    Every parameter must be declared in the notebook's `parameters` cell: a misspelt name
    would otherwise be injected, ignored, and give a report of the wrong day.
    """
    import nbformat
    import papermill

    if not isinstance(notebook, Path) or not notebook.is_file():
        raise ReportError(f"no such notebook: {notebook}")
    if not isinstance(timeout_seconds, int) or timeout_seconds < 1:
        raise ReportError(f"timeout_seconds must be a positive integer, not {timeout_seconds!r}")
    if not isinstance(parameters, Mapping):
        raise ReportError(f"parameters must be a mapping of names to values, not {parameters!r}")
    for name, value in parameters.items():
        if not isinstance(value, _PARAMETER_TYPES):
            raise ReportError(f"parameter {name} must be str, int or bool, not {type(value)}")
    unknown = set(parameters) - declared_parameters(notebook)
    if unknown:
        raise ReportError(
            f"{notebook.name} declares no parameter {sorted(unknown)} in its `parameters` cell"
        )
    with tempfile.TemporaryDirectory(prefix="pixops-report-") as scratch:
        executed = Path(scratch) / notebook.name
        with _environment(PLOTLY_RENDERER=PLOTLY_RENDERER, **_service_settings(notebook)):
            try:
                papermill.execute_notebook(
                    str(notebook),
                    str(executed),
                    parameters=dict(parameters),
                    cwd=str(notebook.parent),
                    progress_bar=False,
                    log_output=False,
                    execution_timeout=timeout_seconds,
                    kernel_manager_class=_ipc_kernel_manager(),
                    # Written once at the end (and on a failure), not after every cell:
                    # each save serialized the whole notebook, charts' JSON included, into
                    # a scratch file no one reads until the run is over.
                    request_save_on_cell_execute=False,
                )
            except papermill.PapermillExecutionError as failure:
                stopped = (
                    ServiceUnreachableError
                    if failure.ename in service_error_names()
                    else ReportError
                )
                raise stopped(
                    f"{notebook.name} failed in cell {failure.exec_count}: "
                    f"{failure.ename}: {failure.evalue}"
                ) from failure
        return nbformat.read(executed, as_version=4)  # type: ignore[no-untyped-call]


def service_error_names() -> frozenset[str]:
    """The class names of the client's errors that mean the service was not read: not
    reached (`TransportError`), refused (`ApiError` and each of its kinds) or answered
    unreadably, and `ServiceStopped`, which a notebook's `check_service` raises in their
    place. A failed cell names its exception's class only, so the names are matched."""
    from pixops.client import ApiError, ResponseValidationError, TransportError
    from pixops.widgets import ServiceStopped

    names: set[str] = set()
    pending: list[type] = [TransportError, ResponseValidationError, ApiError, ServiceStopped]
    while pending:
        kind = pending.pop()
        names.add(kind.__name__)
        pending.extend(kind.__subclasses__())
    return frozenset(names)


def _ipc_kernel_manager() -> type:
    """A kernel manager that talks to its kernel over IPC sockets (files in Jupyter's
    private runtime folder) instead of TCP on loopback: no port another local user could
    reach, and no "running over TCP without encryption" warning on every scheduled run."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum

    class IpcKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    return IpcKernelManager


def _service_settings(notebook: Path) -> dict[str, str]:
    """The ``PIXOPS_*`` settings the kernel needs to reach the service `pixops recon` and
    `pixops lab` use from here: the environment's, else the nearest ``.env`` of the
    notebook's folder or of the working directory (`pixops.desk.service_environment`)."""
    from pixops.desk import ServerError, service_environment

    try:
        env, _ = service_environment(os.environ, [notebook.parent, Path.cwd()])
    except ServerError as error:
        raise ReportError(str(error)) from None
    return {name: value for name, value in env.items() if name.startswith("PIXOPS_")}


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Set environment variables for the kernel about to start, then restore them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, previous in saved.items():
            if previous is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = previous
