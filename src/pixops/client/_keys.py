"""Resolving an ambiguous 11-digit PIX key (CPF or phone) the way the spec recommends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pixops.schema import CpfValidation

__all__ = ["KeyResolution", "resolution_of"]


@dataclass(frozen=True)
class KeyResolution:
    """What `/cpf/validate` said about an 11-digit key, and the type that follows."""

    pix_key: str
    pix_key_type: Literal["cpf", "phone"]
    cpf_valid: bool
    explanation: str

    def __str__(self) -> str:
        return self.explanation


def resolution_of(key: str, validation: CpfValidation) -> KeyResolution:
    if validation.valid:
        return KeyResolution(
            key, "cpf", True, f"{key} is a valid CPF (/cpf/validate), so it is sent as cpf"
        )
    return KeyResolution(
        key,
        "phone",
        False,
        f"{key} is not a valid CPF (/cpf/validate), so by the spec's rule it is a phone"
        " number (area code + 8 or 9 digits)",
    )
