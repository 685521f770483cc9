"""The ledger mapping panel in JupyterLab: a pt-BR export's first rows, the dropdowns and
the amounts previewed in R$, at 1280 px and at 800 px beside the file browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser._lab import (
    CURRENT,
    NARROWEST,
    Server,
    cut_widgets,
    narrow_with_file_browser,
    open_notebook,
    run_all_cells,
    screenshot,
    widget_button,
)
from tests.recon.ptbr_ledger import write_ptbr_ledger

pytestmark = pytest.mark.timeout(600)

_CODE = 'from pixops.widgets import LedgerMapPanel\n\nLedgerMapPanel("../data/razao.csv")'


def _panel_notebook(workspace: Path) -> str:
    """A notebook of one cell showing the panel on a pt-BR ledger kept in centavos."""
    write_ptbr_ledger(workspace / "data" / "razao.csv", centavos=True)
    name = "ledger_map_panel.ipynb"
    cell = {
        "cell_type": "code",
        "metadata": {},
        "source": _CODE,
        "outputs": [],
        "execution_count": None,
    }
    notebook = {
        "cells": [cell],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (workspace / "notebooks" / name).write_text(json.dumps(notebook), encoding="utf-8")
    return name


def test_the_mapping_panel_previews_reais_and_fits_beside_the_file_browser(
    page: Page, lab: Server, workspace: Path
) -> None:
    open_notebook(page, lab, _panel_notebook(workspace))
    run_all_cells(page)
    output = page.locator(f"{CURRENT} .jp-OutputArea-output").first
    expect(output).to_contain_text("Documento")  # the first rows, as written
    expect(output).to_contain_text("holds whole numbers: say their unit")
    unit = output.locator("select").nth(7)  # after the seven fields: the unit
    unit.select_option(label="centavos")
    expect(output).to_contain_text("amounts in centavos (compared to the centavo)")
    expect(output).to_contain_text("R$ 5,70")
    screenshot(page, "ledger-map-panel-1280", element=output)
    narrow_with_file_browser(page, NARROWEST)
    output.scroll_into_view_if_needed()
    screenshot(page, "ledger-map-panel-800")
    assert cut_widgets(page) == []
    scrolled = output.evaluate(
        "out => [...out.querySelectorAll('div[style*=\"overflow-x:auto\"]')]"
        ".filter(box => box.scrollWidth > box.clientWidth + 1).length"
    )
    assert scrolled == 0, "a table of the panel scrolls sideways at 800 px"
    widget_button(page, "Save mapping").click()
    expect(output).to_contain_text("Saved razao.mapping.toml beside the ledger")
    assert (workspace / "data" / "razao.mapping.toml").is_file()
    screenshot(page, "ledger-map-panel-800-saved")
