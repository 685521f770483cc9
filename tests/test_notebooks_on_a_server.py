"""The same notebooks on a served engine, configured by nothing but credentials.

`pixops serve` holds a copy of the demo month; the kernel gets only `PIXOPS_BASE_URL`,
`PIXOPS_CLIENT_ID` and `PIXOPS_CLIENT_SECRET`, exactly what a merchant sets for the real
service. The finance and support notebooks must then print what their stored (sandbox)
outputs say, figure for figure: only the line naming the connection differs, and the
parts built on the sandbox's webhook inbox, which a served engine's client does not have.

The four notebooks run one after another in one kernel of the module, its names cleared
(`%reset -f`) before each: nbval runs every notebook on a fresh kernel already, and a
kernel's start here (~1.5-2 s of CPU, mostly imports) was paid four times.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

from pixops.demo import demo_month
from tests.stress._harness import API, ServerProcess

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def served_month(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, dict[str, str]]]:
    """`pixops serve` on a file copy of the demo month, and the three settings a merchant
    sets for the real service, here pointing at that server."""
    month = demo_month()
    database = tmp_path_factory.mktemp("served") / "demo-month.sqlite3"
    store = month.sandbox.engine.store
    with store.lock, sqlite3.connect(database) as target:
        store.conn.backup(target)
    store.close()
    # A manual clock: nothing the month left scheduled runs while the notebooks read.
    process = ServerProcess(database, extra_args=("--manual-clock",)).start()
    settings = {
        "PIXOPS_BASE_URL": f"http://127.0.0.1:{process.port}{API}",
        "PIXOPS_CLIENT_ID": month.api_key.client_id,
        "PIXOPS_CLIENT_SECRET": month.api_key.client_secret,
    }
    try:
        yield process, settings
    finally:
        process.stop()


@pytest.fixture(scope="module")
def server(served_month: tuple[ServerProcess, dict[str, str]]) -> ServerProcess:
    return served_month[0]


@pytest.fixture(scope="module")
def served(served_month: tuple[ServerProcess, dict[str, str]]) -> dict[str, str]:
    return served_month[1]


@pytest.fixture(scope="module")
def kernel(served: dict[str, str]) -> Iterator[AsyncKernelManager]:
    """One kernel for the module's notebooks, its environment this process's plus the
    three settings: what a merchant's kernel inherits from a shell that set them."""
    manager = AsyncKernelManager(kernel_name="python3")
    run_sync(manager.start_kernel)(
        env={**os.environ, **served},
        cwd=str(NOTEBOOKS),
        extra_arguments=["--HistoryManager.hist_file=:memory:"],
    )
    try:
        yield manager
    finally:
        run_sync(manager.shutdown_kernel)()


def texts(notebook: Any) -> Iterator[tuple[int, str]]:
    """What each code cell printed or showed as text, by cell index."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                yield index, output.text
            elif "text/plain" in output.get("data", {}):
                yield index, output.data["text/plain"]


#: How `pixops.connect()` names the sandbox and a service: the only lines that differ.
CONNECTION_LINES = ("Using the sandbox", "Using the PIX service")


def printed(notebook: Any) -> list[tuple[int, str]]:
    """The notebook's texts without the line naming the connection."""
    found = []
    for index, text in texts(notebook):
        kept = [line for line in text.splitlines() if not line.startswith(CONNECTION_LINES)]
        if kept:
            found.append((index, "\n".join(kept)))
    return found


class _WatchedClient(NotebookClient):  # type: ignore[misc]
    """nbclient's client, handing each output to `on_output` as the kernel sends it."""

    def __init__(
        self, notebook: Any, on_output: Callable[[Any], None] | None, **kwargs: Any
    ) -> None:
        super().__init__(notebook, **kwargs)
        self.on_output = on_output

    def output(self, outs: Any, msg: Any, display_id: Any, cell_index: int) -> Any:
        out = super().output(outs, msg, display_id, cell_index)
        if out is not None and self.on_output is not None:
            self.on_output(out)
        return out


def run_on_server(
    name: str, kernel: AsyncKernelManager, on_output: Callable[[Any], None] | None = None
) -> Any:
    """The notebook run on the served month in the module's kernel, its names cleared
    first; ``on_output(output)`` is called with each output as the kernel sends it."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    notebook.cells.insert(0, new_code_cell("%reset -f"))
    client = _WatchedClient(
        notebook,
        on_output,
        km=kernel,
        timeout=240,
        resources={"metadata": {"path": NOTEBOOKS}},
    )
    try:
        client.execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    notebook.cells.pop(0)  # the cell indices are the stored notebook's again
    return notebook


@pytest.mark.parametrize("name", ["02_statement_analysis.ipynb", "03_daily_reconciliation.ipynb"])
def test_finance_notebooks_give_the_same_figures_on_a_server(
    name: str, served: dict[str, str], kernel: AsyncKernelManager
) -> None:
    stored = nbformat.read(NOTEBOOKS / name, as_version=4)
    ran = run_on_server(name, kernel)
    connection = next(text for _, text in texts(ran) if text.startswith("Using the PIX "))
    assert connection.startswith(f"Using the PIX service at {served['PIXOPS_BASE_URL']}")
    assert printed(ran) == printed(stored)


def test_the_investigation_shows_the_same_record_without_webhooks(
    kernel: AsyncKernelManager,
) -> None:
    name = "06_support_investigation.ipynb"
    stored = dict(printed(nbformat.read(NOTEBOOKS / name, as_version=4)))
    ran = dict(printed(run_on_server(name, kernel)))
    assert ran.keys() == stored.keys()
    for index, text in ran.items():
        # The served client has no webhook inbox: its timeline is the stored one without
        # the webhook lines, in the same order.
        expected = [line for line in stored[index].splitlines() if " webhook " not in line]
        assert text.splitlines() == expected


def test_the_quickstart_waits_for_the_customer_to_pay_the_qr(
    server: ServerProcess, served: dict[str, str], kernel: AsyncKernelManager
) -> None:
    name = "01_quickstart.ipynb"
    stop = threading.Event()
    shown = threading.Event()
    failures: list[BaseException] = []

    def watch(output: Any) -> None:
        if "Pay it with this copia e cola" in output.get("text", ""):
            shown.set()

    def customer_pays() -> None:
        try:
            _pay_when_shown(server, served, stop, shown)
        except BaseException as error:  # reported by the test below, not lost in a thread
            failures.append(error)

    customer = threading.Thread(target=customer_pays)
    customer.start()
    try:
        ran = run_on_server(name, kernel, on_output=watch)
    finally:
        stop.set()
        customer.join(30)
    assert failures == []
    text = "\n".join(text for _, text in printed(ran))
    assert "Pay it with this copia e cola: 000201" in text  # the BR Code to pay, shown
    assert "Status:    Settled" in text
    assert "Paid by:   Cliente do Quickstart" in text
    assert "Amount:    R$ 49,90" in text
    assert "not paid" not in text.lower()


def _pay_when_shown(
    server: ServerProcess, served: dict[str, str], stop: threading.Event, shown: threading.Event
) -> None:
    """The customer: once the quickstart's cell has shown the copia e cola, pay its QR (the
    sandbox's test helper). That cell first reads the charge and shows the code only while
    it is unpaid: paid as soon as the QR existed, it was sometimes paid before that read,
    and rightly showed no code to pay. Then the cell polls every 5 s until it is paid."""
    while not shown.wait(0.2):
        if stop.is_set():
            return
    token = _banner(server, r"^admin token: (\S+)$")
    admin = {"Authorization": f"Bearer {token}"}
    client_id, secret = served["PIXOPS_CLIENT_ID"], served["PIXOPS_CLIENT_SECRET"]
    key = {"Authorization": f"ApiKey {client_id}:{secret}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=10) as http:
        while True:
            found = http.get(f"{API}/transactions/tag/pedido-0001", headers=key).json()
            pending = [row for row in found.get("data", []) if row["status"] == "pending"]
            for charge in pending:
                paid = http.post(
                    f"/sandbox/v1/charges/{charge['transaction_id']}/pay",
                    headers=admin,
                    json={"payer_name": "Cliente do Quickstart"},
                )
                assert paid.status_code == 201, paid.text
            if pending or stop.wait(0.5):
                return


def _banner(server: ServerProcess, pattern: str) -> str:
    for line in server.banner:
        found = re.match(pattern, line)
        if found:
            return found.group(1)
    raise AssertionError(f"nothing like {pattern!r} in the banner: {server.banner}")
