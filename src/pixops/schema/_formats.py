"""The rules of request strings that a bare `type: string` cannot say, as JSON Schema.

Three kinds: patterns (ECMA-262 regular expressions, which JSON Schema, Python's `re`
and Rust's `regex` read alike: `\\u` escapes of four hex digits, no look-around), the `format` names
of this API (annotations for what a pattern cannot check, such as CPF check digits or
an id the service issued; a fuzzer or a code generator attaches a generator to each),
and the cross-field rule of the PIX key and its type (`pix_key_rules`). The engine
enforces every one of them; the document says them so that a request it admits is a
request the service accepts, unless the account's state says otherwise, and a request
it refuses is one the service refuses.
"""

from __future__ import annotations

from typing import Any, Final

from pixops.pixkeys import BRAZILIAN_AREA_CODES, PixKeyType

__all__ = [
    "CNPJ_KEY_PATTERN",
    "CPF_KEY_PATTERN",
    "DOCUMENT_PATTERN",
    "EMAIL_KEY_PATTERN",
    "END_TO_END_PATTERN",
    "EVP_KEY_PATTERN",
    "FORMAT_CNPJ",
    "FORMAT_CPF",
    "FORMAT_DOCUMENT",
    "FORMAT_END_TO_END_ID",
    "FORMAT_MED_CASE_ID",
    "FORMAT_PIX_KEY",
    "FORMAT_TRANSACTION_ID",
    "FORMAT_WEBHOOK_ID",
    "IDEMPOTENCY_KEY_PATTERN",
    "PHONE_KEY_PATTERN",
    "REFERENCE_CHARS",
    "WEBHOOK_URL_PATTERN",
    "end_to_end_pattern",
    "pix_key_rules",
    "trimmed",
    "trimmed_text",
]

# -- format names ------------------------------------------------------------------

FORMAT_CPF: Final = "cpf"
"""11 digits whose two check digits are right (not all equal)."""
FORMAT_CNPJ: Final = "cnpj"
"""12 characters of 0-9 A-Z and two check digits (numeric or the 2026 alphanumeric CNPJ)."""
FORMAT_PIX_KEY: Final = "pix-key"
"""An e-mail, phone or EVP key (the pattern beside it says which); that the directory
holds it is the directory's answer (`dict_key_not_found`), not the key's shape."""
FORMAT_DOCUMENT: Final = "cpf-or-cnpj"
"""A valid CPF or CNPJ, bare or punctuated (`529.982.247-25`, `11.222.333/0001-81`)."""
FORMAT_END_TO_END_ID: Final = "end-to-end-id"
"""The central bank's 32-character id with a real UTC minute."""
FORMAT_TRANSACTION_ID: Final = "transaction-id"
"""An id the service issued: a `transaction_id`, or a QR's `tx_id`."""
FORMAT_MED_CASE_ID: Final = "med-case-id"
"""The `id` of a MED case."""
FORMAT_WEBHOOK_ID: Final = "webhook-id"
"""The `id` of a webhook subscription."""

# -- patterns --------------------------------------------------------------------------

#: The white space above ASCII that `str.isspace()` knows, as part of a class body.
_WIDE_SPACE: Final = r"\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: What Python's `str.strip()` removes (every `str.isspace()` character), as a class body.
_SPACE: Final = r"\u0009-\u000d\u001c-\u0020" + _WIDE_SPACE
#: Control characters and white space, which no URL may carry.
_SPACE_OR_CONTROL: Final = r"\u0000-\u0020\u007f" + _WIDE_SPACE


def trimmed(core: str) -> str:
    """`core` with any white space around it: the service trims, then checks `core`."""
    return f"^[{_SPACE}]*{core}[{_SPACE}]*$"


def trimmed_text(max_chars: int, *, allow_empty: bool = False) -> str:
    """Text of 1 to `max_chars` characters once trimmed (0 too with `allow_empty`),
    whatever white space surrounds it: what `len(value.strip())` checks."""
    core = f"[^{_SPACE}]([\\s\\S]{{0,{max_chars - 2}}}[^{_SPACE}])?"
    return trimmed(f"({core})?" if allow_empty else core)


REFERENCE_CHARS: Final = "[a-zA-Z0-9._:-]"
"""The characters of `external_id` and `tag` (the spec's `a-z A-Z 0-9 . _ : -`)."""
IDEMPOTENCY_KEY_PATTERN: Final = "^[!-~]([ -~]*[!-~])?$"
"""Printable ASCII, not only spaces (the service's check), and no space at either end:
an HTTP field value cannot carry one there (RFC 9110 §5.5)."""
DOCUMENT_PATTERN: Final = "^[0-9A-Za-z./-]+$"
"""The characters of a CPF or CNPJ, bare or punctuated."""
_PORT: Final = (
    "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
)
WEBHOOK_URL_PATTERN: Final = (
    f"^[Hh][Tt][Tt][Pp][Ss]?://[^{_SPACE_OR_CONTROL}/?#@:\\[\\]]+(:{_PORT})?"
    f"([/?][^{_SPACE_OR_CONTROL}#]*)?$"
)
"""http(s), a host, an optional port 1-65535, no credentials, spaces or `#fragment`."""


def end_to_end_pattern(ispb: str = "[0-9A-Z]{8}") -> str:
    """E, the institution's ISPB, yyyyMMddHHmm (UTC), 11 letters or digits: 32 characters.
    The date's ranges are checked here; that the minute exists (no 30 February) is the
    `end-to-end-id` format's part."""
    minute = "[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])([01][0-9]|2[0-3])[0-5][0-9]"
    return f"^E{ispb}{minute}[0-9A-Za-z]{{11}}$"


END_TO_END_PATTERN: Final = end_to_end_pattern()

CPF_KEY_PATTERN: Final = "^[0-9]{11}$"
CNPJ_KEY_PATTERN: Final = "^[0-9A-Za-z]{12}[0-9]{2}$"
_CNPJ_DETECTED_PATTERN: Final = "^[0-9A-Z]{12}[0-9]{2}$"
_EMAIL_LABEL: Final = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_KEY_PATTERN: Final = (
    f"^[A-Za-z0-9.!#$%&'*+/=?^_`{{|}}~-]+@{_EMAIL_LABEL}(\\.{_EMAIL_LABEL})+$"
)
"""The WHATWG e-mail address (ASCII, case-insensitive) with a dot in the domain."""
_AREA_CODES: Final = "|".join(str(code) for code in sorted(BRAZILIAN_AREA_CODES))
PHONE_KEY_PATTERN: Final = f"^(\\+55)?({_AREA_CODES})9[0-9]{{8}}$"
"""A Brazilian mobile number: a real area code, then 9 and eight digits."""
_PHONE_DETECTED_PATTERN: Final = f"^\\+55({_AREA_CODES})9[0-9]{{8}}$"
EVP_KEY_PATTERN: Final = (
    "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-4[0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$"
)
"""A UUID version 4 (RFC 4122 variant)."""

_KEY_SHAPES: Final[dict[str, dict[str, str]]] = {
    PixKeyType.CPF.value: {"pattern": CPF_KEY_PATTERN, "format": FORMAT_CPF},
    PixKeyType.CNPJ.value: {"pattern": CNPJ_KEY_PATTERN, "format": FORMAT_CNPJ},
    PixKeyType.EMAIL.value: {"pattern": EMAIL_KEY_PATTERN, "format": FORMAT_PIX_KEY},
    PixKeyType.PHONE.value: {"pattern": PHONE_KEY_PATTERN, "format": FORMAT_PIX_KEY},
    PixKeyType.EVP.value: {"pattern": EVP_KEY_PATTERN, "format": FORMAT_PIX_KEY},
}
#: Without `pix_key_type` the service detects the type from the shape; 11 bare digits
#: (a CPF or a phone) are ambiguous and need the type, so no shape here admits them.
_DETECTED_SHAPES: Final[tuple[dict[str, str], ...]] = (
    {"pattern": _PHONE_DETECTED_PATTERN, "format": FORMAT_PIX_KEY},
    {"pattern": _CNPJ_DETECTED_PATTERN, "format": FORMAT_CNPJ},
    {"pattern": EMAIL_KEY_PATTERN, "format": FORMAT_PIX_KEY},
    {"pattern": EVP_KEY_PATTERN, "format": FORMAT_PIX_KEY},
)


def pix_key_rules(key_field: str = "pix_key", type_field: str = "pix_key_type") -> dict[str, Any]:
    """`anyOf` the ways to name a key: with each `pix_key_type` and a key of that type's
    shape, or without a type (absent or null) and a key whose shape says it (11 bare
    digits do not)."""
    typed: list[dict[str, Any]] = [
        {
            "required": [type_field],
            "properties": {type_field: {"const": key_type}, key_field: dict(shape)},
        }
        for key_type, shape in _KEY_SHAPES.items()
    ]
    detected: list[dict[str, Any]] = [
        {"properties": {type_field: {"type": "null"}, key_field: dict(shape)}}
        for shape in _DETECTED_SHAPES
    ]
    return {"anyOf": typed + detected}
