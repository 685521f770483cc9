"""Tests for pixops.participants: the packaged list of institutions by ISPB.

Known values are rows of src/pixops/_data/participants.csv (the central bank's
list of Pix and STR participants).
"""

import re

import pytest

from pixops import participants
from pixops.participants import Participant


@pytest.mark.parametrize(
    ("ispb", "short_name"),
    [
        ("00000000", "BCO DO BRASIL S.A."),
        ("00360305", "CAIXA ECONOMICA FEDERAL"),
        ("60701190", "ITAÚ UNIBANCO S.A."),
        ("60746948", "BCO BRADESCO S.A."),
        ("90400888", "BCO SANTANDER (BRASIL) S.A."),
        ("18236120", "NU PAGAMENTOS - IP"),
    ],
)
def test_known_banks(ispb: str, short_name: str) -> None:
    assert participants.bank_name(ispb) == short_name
    participant = participants.lookup(ispb)
    assert participant is not None
    assert participant.ispb == ispb
    assert participant.short_name == short_name
    assert participant.pix
    assert participant.str_participant
    assert participant.cnpj is not None
    assert participant.cnpj.startswith(ispb)  # these banks' CNPJ roots equal their ISPB
    assert participant in participants.pix_participants()


def test_full_row() -> None:
    assert participants.lookup("18236120") == Participant(
        ispb="18236120",
        short_name="NU PAGAMENTOS - IP",
        full_name="NU PAGAMENTOS - IP",
        cnpj="18236120000158",
        institution_type="Instituição de Pagamento",
        pix=True,
        str_participant=True,
    )


def test_row_without_cnpj_and_outside_pix() -> None:
    selic = participants.lookup("00038121")
    assert selic is not None
    assert selic.short_name == "Selic"
    assert selic.full_name == "Banco Central do Brasil - Selic"
    assert selic.cnpj is None
    assert selic.pix is False
    assert selic.str_participant is True
    assert selic not in participants.pix_participants()


@pytest.mark.parametrize("ispb", ["99999999", "360305", " 00360305", "0036030", "", "BCO"])
def test_unknown_ispb(ispb: str) -> None:
    assert participants.lookup(ispb) is None
    assert participants.bank_name(ispb) is None


def test_bank_name_of_none() -> None:
    assert participants.bank_name(None) is None


def test_whole_table() -> None:
    everyone = participants.all_participants()
    assert len(everyone) == 1115
    assert len({participant.ispb for participant in everyone}) == 1115
    assert [participant.ispb for participant in everyone] == sorted(
        participant.ispb for participant in everyone
    )
    for participant in everyone:
        assert re.fullmatch(r"[0-9]{8}", participant.ispb)
        assert participant.short_name
        assert participant.full_name
        assert participant.cnpj is None or re.fullmatch(r"[0-9]{14}", participant.cnpj)
        assert participants.lookup(participant.ispb) is participant


def test_pix_participants() -> None:
    pix = participants.pix_participants()
    assert len(pix) == 885
    assert all(participant.pix for participant in pix)
    assert set(pix) == {p for p in participants.all_participants() if p.pix}


def test_table_is_read_once() -> None:
    assert participants.all_participants() is participants.all_participants()
    assert participants.pix_participants() is participants.pix_participants()


def test_participants_are_frozen() -> None:
    participant = participants.lookup("00000000")
    assert participant is not None
    with pytest.raises(AttributeError):
        participant.short_name = "x"  # type: ignore[misc]
