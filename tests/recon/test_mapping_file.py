"""Mapping files: TOML and YAML read strictly, written back exactly, found beside the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.recon import (
    LedgerError,
    LedgerMapping,
    find_mapping,
    mapping_beside,
    read_mapping,
    write_mapping,
)
from pixops.recon._mapping_file import mapping_text

PTBR_TOML = """
version = 1
[columns]
entry_id = "Documento"
reference = "Referência"
amount = "Valor"
direction = false
fee = "Tarifa"
status = "Situação"
booked_on = "Data"
[format]
amount_unit = "reais"
decimal = "comma"
date_format = "dd/mm/yyyy"
separator = "semicolon"
encoding = "windows-1252"
"""
PTBR = LedgerMapping(
    entry_id="Documento",
    reference="Referência",
    amount="Valor",
    direction=None,
    fee="Tarifa",
    status="Situação",
    booked_on="Data",
    amount_unit="reais",
    decimal="comma",
    date_format="dd/mm/yyyy",
    separator="semicolon",
    encoding="windows-1252",
)


def test_toml_and_yaml_say_the_same_mapping(tmp_path: Path) -> None:
    toml = tmp_path / "razao.mapping.toml"
    toml.write_text(PTBR_TOML, encoding="utf-8")
    assert read_mapping(toml) == PTBR
    yaml_file = tmp_path / "razao.mapping.yaml"
    yaml_file.write_text(
        "columns:\n  entry_id: Documento\n  reference: Referência\n  amount: Valor\n"
        "  direction: null\n  fee: Tarifa\n  status: Situação\n  booked_on: Data\n"
        "format:\n  amount_unit: reais\n  decimal: comma\n  date_format: dd/mm/yyyy\n"
        "  separator: semicolon\n  encoding: windows-1252\n",
        encoding="utf-8",
    )
    assert read_mapping(yaml_file) == PTBR


def test_settings_left_out_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[columns]\namount = "Valor"\n', encoding="utf-8")
    assert read_mapping(path) == LedgerMapping(amount="Valor")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[columns]\nvalor = "Valor"\n',
            r"unknown key columns\.valor \(known in \[columns\]: entry_id",
        ),
        ('[formats]\namount_unit = "reais"\n', r"unknown key 'formats' \(known: version, columns"),
        ('[format]\namount_unit = "dollars"\n', "amount_unit must be one of base, centavos, reais"),
        ('[format]\ndecimal = ","\n', "decimal must be one of comma, point"),
        ("[columns]\namount = 3\n", "columns.amount must be text, not 3"),
        ("[columns]\namount = false\n", "columns.amount must be text, not False"),
        ('[columns]\nfee = "Valor"\namount = "Valor"\n', "names the column 'Valor' for two things"),
        ("version = 2\n", "version 2 is not one this pixops reads"),
        ("[columns\n", "is not TOML"),
        ('columns = "x"\n', r"\[columns\] must be a section"),
    ],
)
def test_a_bad_mapping_file_is_refused_naming_what(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LedgerError, match=message):
        read_mapping(path)


def test_other_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no such mapping file"):
        read_mapping(tmp_path / "missing.toml")
    json_file = tmp_path / "m.json"
    json_file.write_text("{}", encoding="utf-8")
    with pytest.raises(LedgerError, match=r"must be \.toml, \.yaml or \.yml"):
        read_mapping(json_file)
    bad_yaml = tmp_path / "m.yaml"
    bad_yaml.write_text("columns: [\n", encoding="utf-8")
    with pytest.raises(LedgerError, match="is not YAML"):
        read_mapping(bad_yaml)
    scalar = tmp_path / "s.yaml"
    scalar.write_text("just text\n", encoding="utf-8")
    with pytest.raises(LedgerError, match="expected sections"):
        read_mapping(scalar)


_names = st.text(min_size=1, max_size=20).filter(lambda t: t.strip() != "")


@settings(max_examples=60, deadline=None)
@given(amount=_names, reference=_names, unit=st.sampled_from([None, "reais", "centavos", "base"]))
def test_a_saved_mapping_reads_back_the_same(
    tmp_path_factory: pytest.TempPathFactory, amount: str, reference: str, unit: str | None
) -> None:
    if amount == reference:
        return
    mapping = LedgerMapping(amount=amount, reference=reference, fee=None, amount_unit=unit)  # type: ignore[arg-type]
    path = tmp_path_factory.mktemp("m") / "razao.mapping.toml"
    assert read_mapping(write_mapping(mapping, path)) == mapping


def test_a_mapping_saved_beside_the_ledger_is_found(tmp_path: Path) -> None:
    ledger = tmp_path / "razao.csv"
    assert find_mapping(ledger) is None
    saved = write_mapping(PTBR, mapping_beside(ledger))
    assert saved == tmp_path / "razao.mapping.toml"
    assert find_mapping(ledger) == saved
    assert (saved.stat().st_mode & 0o777) == 0o644  # colleagues on a shared drive read it
    assert "direction = false" in mapping_text(PTBR)
    with pytest.raises(LedgerError, match=r"give a \.toml name"):
        write_mapping(PTBR, tmp_path / "m.yaml")
