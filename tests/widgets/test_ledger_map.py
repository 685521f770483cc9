"""The ledger mapping panel: its logic (`LedgerMapDraft`) without widgets, then the view."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.recon import LedgerError, find_mapping, read_mapping
from pixops.widgets import LedgerMapDraft, LedgerMapPanel, ReconDashboard
from pixops.widgets._ledger_map_flow import LedgerMapFlow
from tests.recon.ptbr_ledger import write_ptbr_ledger
from tests.widgets.conftest import Desk


@pytest.fixture(scope="module")
def razao(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ptbr_ledger(tmp_path_factory.mktemp("books") / "razao.csv")


def test_a_ptbr_export_starts_on_its_columns_and_previews_reais(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv")
    draft = LedgerMapDraft(ledger)
    assert draft.columns == ["Documento", "Referência", "Valor", "Tarifa", "Situação", "Data"]
    assert len(draft.head.rows) == 5
    assert draft.head.rows[0][2] == "5,70"  # as written
    assert draft.choices == {
        "entry_id": "Documento",
        "reference": "Referência",
        "amount": "Valor",
        "fee": "Tarifa",
        "direction": None,
        "status": "Situação",
        "booked_on": "Data",
    }
    rows, line = draft.preview()
    assert line == "read as: semicolon, Windows-1252, decimal comma, dd/mm/yyyy, amounts in reais"
    assert (rows[0].amount, rows[0].booked_on, rows[0].status) == (
        "R$ 5,70",
        "01/01/2026",
        "settled",
    )
    assert rows[0].direction == "received"


def test_choosing_another_column_changes_the_preview_and_missing_ones_are_asked(
    razao: Path,
) -> None:
    draft = LedgerMapDraft(razao)
    draft.choose("amount", "Tarifa")
    draft.choose("fee", None)
    rows, _ = draft.preview()
    assert rows[0].amount != "R$ 5,70"
    draft.choose("booked_on", None)
    with pytest.raises(LedgerError, match="Choose the column of: Booked on"):
        draft.preview()
    with pytest.raises(LedgerError, match="no column 'Nope'"):
        draft.choose("amount", "Nope")


def test_a_wrong_unit_is_shown_in_the_preview(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    draft = LedgerMapDraft(ledger)
    with pytest.raises(LedgerError, match="holds whole numbers: say their unit"):
        draft.preview()
    draft.set_format("amount_unit", "centavos")
    rows, line = draft.preview()
    assert rows[0].amount == "R$ 5,70"
    assert line.endswith("amounts in centavos (compared to the centavo)")
    with pytest.raises(LedgerError, match="amount_unit must be one of"):
        draft.set_format("amount_unit", "dollars")


def test_saving_writes_beside_the_ledger_only_when_the_whole_file_reads(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv")
    draft = LedgerMapDraft(ledger)
    written, line = draft.save()
    assert written == tmp_path / "razao.mapping.toml"
    assert find_mapping(ledger) == written
    saved = read_mapping(written)
    assert (saved.amount, saved.direction, saved.separator) == ("Valor", None, "semicolon")
    assert line.startswith("read as: semicolon")
    again = LedgerMapDraft(ledger)  # the next opening starts from it
    assert again.saved_from == written
    assert again.choices["amount"] == "Valor"
    broken = tmp_path / "broken.csv"
    broken.write_bytes(ledger.read_bytes() + "X;y;abc;0;Liquidado;01/01/2026\r\n".encode("cp1252"))
    with pytest.raises(LedgerError, match="'abc'"):
        LedgerMapDraft(broken).save()
    assert find_mapping(broken) is None  # nothing written


def test_the_flow_opens_previews_and_saves_without_widgets(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    flow = LedgerMapFlow()
    assert not flow.can_save  # nothing open yet
    flow.open(f"  {ledger}  ")
    assert flow.status.tone == "info"
    assert flow.status.text.startswith("razao.csv: ")
    assert "6 columns; the first 5 below." in flow.status.text
    assert flow.reading.tone == "warn"  # whole numbers: the unit is asked, not guessed
    assert "holds whole numbers" in flow.reading.text
    assert (flow.rows, flow.can_save) == ([], False)
    assert flow.save() is None  # a save before the rows read is refused, nothing written
    assert find_mapping(ledger) is None
    flow.set_format("amount_unit", "centavos")
    assert flow.reading.text.startswith("Read as: semicolon")
    assert flow.rows[0].amount == "R$ 5,70"
    assert flow.can_save
    flow.choose("booked_on", None)
    assert flow.reading.text == "Choose the column of: Booked on."
    assert not flow.can_save
    flow.choose("booked_on", "Data")
    written = flow.save()
    assert written == tmp_path / "razao.mapping.toml" == flow.saved_path
    assert flow.saved.tone == "ok"
    assert "the next Reconcile uses it" in flow.saved.text
    flow.open(str(ledger))  # opened again: from the saved mapping, the last save forgotten
    assert "Started from the mapping saved in razao.mapping.toml." in flow.status.text
    assert (flow.saved.text, flow.saved_path) == ("", None)
    flow.open(str(tmp_path / "nope.csv"))
    assert (flow.draft, flow.status.tone, flow.rows) == (None, "error", [])
    assert "No such ledger file" in flow.status.text
    flow.open("bad\ud800.csv")
    assert flow.draft is None
    assert flow.status.tone == "error"


def test_the_panel_shows_the_flow_as_traitlets(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    panel = LedgerMapPanel(ledger)
    assert panel.ledger_path == str(ledger)
    assert panel.status_text.startswith("razao.csv: ")
    assert "holds whole numbers" in panel.reading_text
    assert (panel.can_save, panel.saved_path) == (False, "")
    panel.formats["amount_unit"].value = "centavos"
    assert panel.can_save
    assert panel.reading_text.startswith("Read as: semicolon")
    panel.save()
    assert panel.saved_path == str(tmp_path / "razao.mapping.toml")
    panel.path.value = str(tmp_path / "nope.csv")
    panel.open_ledger()
    assert (panel.ledger_path, panel.can_save, panel.head.value) == ("", False, "")


def test_the_panel_is_a_view_of_the_draft(tmp_path: Path) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    saved: list[Path] = []
    panel = LedgerMapPanel(ledger, on_saved=saved.append)
    assert "Documento" in panel.head.value
    assert "holds whole numbers" in panel.read_as.value
    assert panel.save_button.disabled
    panel.formats["amount_unit"].value = "centavos"
    assert "R$ 5,70" in panel.preview.value
    assert "amounts in centavos" in panel.read_as.value
    panel.save_button.click()
    assert saved == [tmp_path / "razao.mapping.toml"]
    assert "the next Reconcile uses it" in panel.save_status.value
    missing = LedgerMapPanel(tmp_path / "nope.csv")
    assert "No such ledger file" in missing.status.value


def test_the_dashboard_reads_a_saved_mapping_and_says_a_wrong_unit_first(
    desk: Desk, tmp_path: Path
) -> None:
    ledger = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    board = ReconDashboard(desk.client, ledger, day="2026-01-15", now=desk.now)
    board.run()  # its columns are not named yet: said, no traceback
    assert "no column 'entry_id' (its columns: Documento" in board.status_text
    draft = LedgerMapDraft(ledger)
    draft.set_format("amount_unit", "base")  # the wrong unit, saved
    draft.save()
    board.run()
    assert board.status_text.startswith("The ledger's unit looks wrong:")
    assert 'give amount_unit = "centavos" in the ledger mapping' in board.status_text
    assert "read as: semicolon, Windows-1252, whole numbers" in board.ledger_line.value
    board.mapping_panel.path.value = str(ledger)  # type: ignore[union-attr]
    board.mapping_panel.open_ledger()  # type: ignore[union-attr]
    board.mapping_panel.formats["amount_unit"].value = "centavos"  # type: ignore[union-attr]
    board.mapping_panel.save_button.click()  # type: ignore[union-attr]
    board.run()
    assert "unit looks wrong" not in board.status_text
    assert board.result is not None
    assert board.result.counts["rounding"] > 200  # sub-centavo fees, counted apart


def test_the_dashboard_names_a_column_past_64_bits(desk: Desk, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(
        "entry_id,reference,direction,amount_base,fee_base,status,booked_on\n"
        + "".join(f"L{n},r{n},inbound,{9 * 10**18},0,,2026-01-15\n" for n in range(2)),
        encoding="utf-8",
    )
    board = ReconDashboard(desk.client, ledger, day="2026-01-15", now=desk.now)
    board.run()
    assert "olumn 'amount_base': the amounts add up past the 64-bit range" in board.status_text
    assert "Conversion" not in board.status_text


def test_the_panel_names_its_own_settings_not_the_command_line_s_flags(tmp_path: Path) -> None:
    """The reader's advice ("--amount-unit reais") is the command line's; in the panel the
    same choice is a dropdown: Unit, Decimal, Days."""
    flow = LedgerMapFlow()
    flow.open(str(write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)))
    assert "choose their Unit above (reais, centavos or base" in flow.reading.text
    # Two entries, pt-BR columns: the amounts and the days as given.
    for (first, second), said in (
        (("1.234;0;Liquidado;15/01/2026", "2.500;0;Liquidado;15/01/2026"), "Decimal mark"),
        (("1,00;0;Liquidado;15/01/2026", "2,00;0;Liquidado;2026-01-16"), "form of the Days"),
    ):
        books = tmp_path / f"{said.split()[-1].lower()}.csv"
        books.write_text(
            f"Documento;Referência;Valor;Tarifa;Situação;Data\nL1;r1;{first}\nL2;r2;{second}\n",
            encoding="utf-8",
        )
        flow.open(str(books))
        assert f"choose the {said} above" in flow.reading.text
        for line in (flow.reading.text, flow.status.text):
            assert "--" not in line
