"""Simulated payers: who sends PIX to our merchants, and from which bank.

Names are common Brazilian given names and surnames; documents are valid CPFs (and,
for the occasional company, CNPJs); banks are real Pix participants weighted toward
the large retail banks and wallets, as real traffic is. Everything draws from the
engine's seeded generator, so a sandbox run is reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from typing import Final

from pixops import documents, limits, participants
from pixops.engine.errors import PayerError

__all__ = [
    "MAX_NAME_LENGTH",
    "Payer",
    "PayerError",
    "normalize_document",
    "random_cnpj",
    "random_cpf",
    "random_ispb",
    "random_payer",
    "resolve_payer",
]

MAX_NAME_LENGTH: Final = limits.PAYER_NAME_MAX_CHARS

_GIVEN_NAMES: Final = (
    "Ana", "Maria", "Juliana", "Fernanda", "Camila", "Beatriz", "Larissa", "Patrícia",
    "Aline", "Mariana", "Gabriela", "Letícia", "Bruna", "Vanessa", "Luana", "Adriana",
    "João", "José", "Pedro", "Lucas", "Gabriel", "Rafael", "Matheus", "Gustavo",
    "Felipe", "Bruno", "Thiago", "Rodrigo", "Carlos", "Eduardo", "Marcelo", "Antônio",
)  # fmt: skip
_SURNAMES: Final = (
    "Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira",
    "Lima", "Gomes", "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes",
    "Soares", "Fernandes", "Vieira", "Barbosa", "Rocha", "Dias", "Nascimento", "Andrade",
    "Moreira", "Nunes", "Marques", "Machado", "Mendes", "Freitas", "Cardoso", "Teixeira",
)  # fmt: skip
_COMPANY_WORDS: Final = (
    "Comercial", "Distribuidora", "Mercado", "Padaria", "Farmácia", "Auto Peças",
    "Construtora", "Papelaria", "Restaurante", "Transportes", "Tecnologia", "Materiais",
)  # fmt: skip
_COMPANY_SUFFIXES: Final = ("LTDA", "ME", "EIRELI", "S.A.")

#: Relative weights of the largest Pix participants by transaction volume; the
#: remaining participants share `_LONG_TAIL_WEIGHT` evenly.
_BIG_BANKS: Final = (
    ("18236120", 22),  # Nubank
    ("60701190", 11),  # Itaú Unibanco
    ("00000000", 10),  # Banco do Brasil
    ("00360305", 10),  # Caixa Econômica Federal
    ("60746948", 9),  # Bradesco
    ("90400888", 7),  # Santander
    ("10573521", 6),  # Mercado Pago
    ("22896431", 5),  # PicPay
    ("00416968", 5),  # Banco Inter
    ("31872495", 3),  # C6 Bank
    ("08561701", 3),  # PagSeguro
    ("01181521", 2),  # Sicredi
)
_LONG_TAIL_WEIGHT: Final = 7
_COMPANY_SHARE_PERCENT: Final = 10


@dataclass(frozen=True)
class Payer:
    """Who sends a PIX: holder name, CPF or CNPJ (bare), and the bank's ISPB."""

    name: str
    document: str
    ispb: str


def random_cpf(rng: random.Random) -> str:
    """A valid bare CPF (never all-equal digits)."""
    while True:
        body = "".join(rng.choices("0123456789", k=9))
        if len(set(body)) > 1:
            return body + documents.cpf_check_digits(body)


def random_cnpj(rng: random.Random) -> str:
    """A valid bare numeric CNPJ of a head office (branch ``0001``)."""
    while True:
        body = "".join(rng.choices("0123456789", k=8)) + "0001"
        if len(set(body)) > 1:
            return body + documents.cnpj_check_digits(body)


def random_ispb(rng: random.Random, *, exclude: str | None = None) -> str:
    """A Pix participant's ISPB, weighted toward the big banks; never `exclude`."""
    codes, cumulative = _ispb_table()
    while True:
        ispb = rng.choices(codes, cum_weights=cumulative, k=1)[0]
        if ispb != exclude:
            return ispb


def random_payer(rng: random.Random, *, exclude_ispb: str | None = None) -> Payer:
    """A plausible payer: mostly people with a CPF, sometimes a company with a CNPJ."""
    if rng.randrange(100) < _COMPANY_SHARE_PERCENT:
        name = (
            f"{rng.choice(_COMPANY_WORDS)} {rng.choice(_SURNAMES)} {rng.choice(_COMPANY_SUFFIXES)}"
        )
        document = random_cnpj(rng)
    else:
        first, second = rng.sample(_SURNAMES, 2)
        name = f"{rng.choice(_GIVEN_NAMES)} {first} {second}"
        document = random_cpf(rng)
    return Payer(name=name, document=document, ispb=random_ispb(rng, exclude=exclude_ispb))


def resolve_payer(
    rng: random.Random,
    *,
    name: str | None,
    document: str | None,
    ispb: str | None,
    service_ispb: str,
) -> Payer:
    """The payer from the given attributes, with a random payer filling the gaps.

    A document may carry the usual punctuation and is stored bare; the ISPB must be
    8 characters ``[0-9A-Z]`` and cannot be the service's own (internal PIX between
    accounts of the same institution is not supported).
    """
    filler = random_payer(rng, exclude_ispb=service_ispb)
    if name is None and document is None and ispb is None:
        return filler
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise PayerError("payer_name must be a non-empty string")
        if len(name.strip()) > MAX_NAME_LENGTH:
            raise PayerError(f"payer_name must be at most {MAX_NAME_LENGTH} characters")
    if ispb is not None:
        if not isinstance(ispb, str) or len(ispb) != 8 or not ispb.isalnum() or not ispb.isascii():
            raise PayerError(f"payer_ispb must be 8 characters [0-9A-Z], got {ispb!r}")
        if ispb != ispb.upper():
            raise PayerError(f"payer_ispb must be upper case, got {ispb!r}")
        if ispb == service_ispb:
            raise PayerError(
                f"payer_ispb {ispb} is the service's own institution; internal PIX is not supported"
            )
    return Payer(
        name=filler.name if name is None else name.strip(),
        document=filler.document if document is None else normalize_document(document),
        ispb=filler.ispb if ispb is None else ispb,
    )


def normalize_document(document: object) -> str:
    """A CPF or CNPJ in bare form; PayerError if it is neither."""
    if not isinstance(document, str):
        raise PayerError(f"document must be a string, got {type(document).__name__}")
    for normalize in (documents.normalize_cpf, documents.normalize_cnpj):
        try:
            return normalize(document)
        except documents.DocumentError:
            continue
    raise PayerError(f"document {document!r} is neither a valid CPF nor a valid CNPJ")


@cache
def _ispb_table() -> tuple[tuple[str, ...], tuple[int, ...]]:
    """ISPBs and their cumulative weights."""
    big = dict(_BIG_BANKS)
    tail = [p.ispb for p in participants.pix_participants() if p.ispb not in big]
    listed = {p.ispb for p in participants.pix_participants()}
    codes = [ispb for ispb in big if ispb in listed]
    weights = [big[ispb] * len(tail) for ispb in codes]
    codes.extend(tail)
    weights.extend([_LONG_TAIL_WEIGHT] * len(tail))
    return tuple(codes), tuple(accumulate(weights))
