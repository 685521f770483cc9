"""Schemathesis against the OpenAPI documents that `pixops serve` publishes, for every
operation, with valid credentials and every body signed over its exact bytes: the
snake_case document (`openapi.json`), and the camelCase mode's own document
(`openapi.json?key_case=camelCase`) with `X-Key-Case: camelCase` sent.

Checks: no 5xx, no leak, status codes, content types, headers and bodies inside the
document the case was generated from (a camelCase answer against the camelCase
document, as a client generated from it reads it), schema-invalid
requests refused, and schema-valid requests accepted: a positive case answers 2xx or
one of the `EXPLAINED` refusals, whose cause is the state of the account, of the key
directory or of an earlier request, never the request's shape.

The document marks what a pattern cannot check with a `format` (`cpf`, `pix-key`,
`end-to-end-id`, `transaction-id`, ...); `register_formats` gives each a generator
that draws valid values, including ids and keys that exist (documented sandbox test
keys, and the seeded merchant's transactions, MED case and subscription), so the
success paths are fuzzed too and a refusal of a well-formed id can only be a 404.

Bounded for the suite by `STRESS_FUZZ_EXAMPLES` (default 6 per operation and casing);
benchmarks/fuzz_long.py runs the same test with many more.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pixops import documents, schema, wire
from pixops.engine import openapi
from pixops.engine.config import SERVICE_ISPB
from pixops.engine.world.sandbox_keys import TEST_KEYS
from pixops.pixkeys import BRAZILIAN_AREA_CODES
from pixops.sandbox import Sandbox
from tests.stress._harness import (
    SETTLING_KEY,
    Credentials,
    ServerProcess,
    auth_header,
    file_violations,
    get,
    http_client,
    integrity,
    leaks,
    post,
    seed_merchant,
)

if TYPE_CHECKING:
    from schemathesis.generation.modes import GenerationMode

# schemathesis is imported where it is used, never at module level: every pytest-xdist
# worker imports this module to collect it (~0.2 s of CPU each), one runs it.

EXAMPLES = int(os.environ.get("STRESS_FUZZ_EXAMPLES", "6"))


def checks() -> list[Any]:
    """schemathesis's checks each answer goes through."""
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        negative_data_rejection,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ]


# -- refusals of a schema-valid request that are not about its shape ----------------


@dataclass(frozen=True)
class Explained:
    status: int
    causes: frozenset[str]
    why: str


DIRECTORY_CODES: Final = frozenset(
    {
        "dict_key_not_found",
        "dict_key_blocked",
        "dict_lookup_failed",
        "dict_rate_limited",
        "dict_bucket_exhausted",
        "provider_rejected",
        "provider_schema_error",
        "provider_unknown_error",
    }
)
#: The only refusals a schema-valid request may get; each is documented (the spec's
#: tables, the operation's 404/422/429) and caused by state the document cannot know.
EXPLAINED: Final = (
    Explained(
        404,
        frozenset({"not_found"}),
        "the id is well formed but names nothing this merchant has (never issued, deleted,"
        " another merchant's, or not a received PIX for a refund)",
    ),
    Explained(
        400,
        DIRECTORY_CODES,
        "the spec's DICT and provider table (Format A): the key directory's answer about a"
        " well-formed key (unregistered, blocked, limited, unavailable)",
    ),
    Explained(
        422,
        frozenset({"same_institution_transfer"}),
        "the key or ISPB is this institution's: where an account lives is the directory's fact",
    ),
    Explained(
        422,
        frozenset({"insufficient_balance", "ceiling_exceeded", "account_limit"}),
        "the account's safe balance or its per-transaction limit",
    ),
    Explained(
        422,
        frozenset({"refund_over_remaining", "original_not_settled"}),
        "the original's remaining refundable amount or its status",
    ),
    Explained(
        422,
        frozenset({"not_settled", "defense_closed", "subscription_limit"}),
        "the record's state: a receipt needs a settled transaction, a defense an open case"
        " not yet defended, a new subscription fewer than 16 active ones",
    ),
    Explained(
        422,
        frozenset({"idempotency_key_reused"}),
        "the Idempotency-Key was used earlier with another body (the idempotency cache)",
    ),
    Explained(429, frozenset({"rate_limited"}), "the per-IP rate limit of the minute"),
    Explained(
        400,
        frozenset({"date_range_inverted"}),
        "date_from after date_to: the parameters' description says it; JSON Schema cannot"
        " relate two parameters",
    ),
)
_BUSINESS_CAUSES: Final = (
    ("per-transaction limit", "account_limit"),
    ("exceeds the original transaction amount", "refund_over_remaining"),
    ("insufficient balance", "insufficient_balance"),
    ("only a settled received PIX can be refunded", "original_not_settled"),
    ("receipt exists only for settled", "not_settled"),
    ("a defense is no longer accepted", "defense_closed"),
    ("defense was already submitted", "defense_closed"),
    ("defense deadline", "defense_closed"),
    ("a defense needs it OPEN", "defense_closed"),
    ("webhook subscriptions", "subscription_limit"),
)


def refusal_cause(response: httpx.Response) -> str:
    """What a refusal says its cause is, as one word: a Format A code, a business rule,
    `not_found`, or the message itself when it is none of the known ones."""
    try:
        body = wire.snakify_keys(response.json())
    except ValueError:
        return response.text[:200]
    if not isinstance(body, dict):
        return response.text[:200]
    errors = body.get("errors")
    if body.get("status") == "failed" and isinstance(errors, list) and errors:
        first = errors[0]
        return str(first.get("code", "")).lower() if isinstance(first, dict) else str(first)
    if isinstance(errors, dict):
        if "not_found" in errors:
            return "not_found"
        message = errors.get("unprocessable_entity")
        if isinstance(message, str):
            found = [cause for text, cause in _BUSINESS_CAUSES if text in message.lower()]
            return found[0] if found else message
        if errors.get("bad_request") == {"date_from": ["must not be after date_to"]}:
            return "date_range_inverted"
        return json.dumps(errors)[:200]
    if response.status_code == 404 and isinstance(body.get("detail"), str):
        return "not_found"
    error = body.get("error")
    if isinstance(error, dict):
        message = str(error.get("message", ""))
        if "Idempotency-Key was already used" in message:
            return "idempotency_key_reused"
        if response.status_code == 429:
            return "rate_limited"
        return message
    return response.text[:200]


def explained(case: Any, response: httpx.Response) -> Explained | None:
    """The entry of `EXPLAINED` that covers this refusal, if any."""
    cause = refusal_cause(response)
    documented = case.operation.definition.raw.get("responses", {})
    for entry in EXPLAINED:
        if response.status_code == entry.status and cause in entry.causes:
            return entry if str(entry.status) in documented else None
    return None


def acceptance_problem(case: Any, response: httpx.Response) -> str | None:
    """None when a schema-valid request was accepted or refused for an explained cause."""
    if response.status_code < 300 or explained(case, response) is not None:
        return None
    return (
        f"{case.operation.label} refused a schema-valid request: {response.status_code}"
        f" {response.text[:300]}\n  path {case.path_parameters} query {case.query}"
        f" body {case.body!r:.400}"
    )


# -- generators for the document's formats ---------------------------------------------

_ALNUM: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CNPJ_BODY: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _not_all_equal(text: str) -> bool:
    return len(set(text)) > 1


CPFS: Final = (
    st.text("0123456789", min_size=9, max_size=9)
    .map(lambda nine: nine + documents.cpf_check_digits(nine))
    .filter(_not_all_equal)
)
CNPJS: Final = (
    st.text(_CNPJ_BODY, min_size=12, max_size=12)
    .map(lambda twelve: twelve + documents.cnpj_check_digits(twelve))
    .filter(_not_all_equal)
)
OWN_END_TO_END_IDS: Final = st.builds(
    lambda minute, tail: f"E{SERVICE_ISPB}{minute:%Y%m%d%H%M}{tail}",
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)),
    st.text(_ALNUM, min_size=11, max_size=11),
)
EMAIL_KEYS: Final = st.from_regex(r"\A[a-z0-9._+-]{1,20}@[a-z0-9]{1,20}\.(com|br|dev)\Z")
PHONE_KEYS: Final = st.builds(
    lambda prefix, area, number: f"{prefix}{area}9{number}",
    st.sampled_from(["", "+55"]),
    st.sampled_from(sorted(BRAZILIAN_AREA_CODES)),
    st.text("0123456789", min_size=8, max_size=8),
)
EVP_KEYS: Final = st.uuids(version=4).map(str)
UNKNOWN_IDS: Final = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)


@dataclass
class Known:
    """Ids and keys that exist on the served database, for the format generators."""

    transaction_ids: list[str] = field(default_factory=list)
    end_to_end_ids: list[str] = field(default_factory=list)
    med_case_ids: list[str] = field(default_factory=list)
    webhook_ids: list[str] = field(default_factory=list)


def _existing_or_not(existing: list[str], other: st.SearchStrategy[str]) -> Any:
    return st.one_of(st.sampled_from(existing), other) if existing else other


def register_formats(known: Known) -> None:
    """A generator for every `format` the document uses beyond JSON Schema's own."""
    registered: dict[str, list[str]] = {}
    for test in TEST_KEYS:
        registered.setdefault(test.entry.key_type, []).append(test.entry.key)
    documents_ = st.one_of(
        CPFS, CPFS.map(documents.format_cpf), CNPJS, CNPJS.map(documents.format_cnpj)
    )
    strategies = {
        # CPF and CNPJ keys: the documented test keys (each outcome) or any valid one.
        schema.FORMAT_CPF: _existing_or_not(registered["cpf"], CPFS),
        schema.FORMAT_CNPJ: _existing_or_not(registered["cnpj"], CNPJS),
        schema.FORMAT_DOCUMENT: documents_,
        # E-mail, phone and EVP keys (each branch's pattern keeps its own type): the test
        # keys (settled, settled at once, queued, rejected, orphaned, refused) or any.
        schema.FORMAT_PIX_KEY: st.one_of(
            st.sampled_from([*registered["email"], *registered["phone"], *registered["evp"]]),
            EMAIL_KEYS,
            PHONE_KEYS,
            EVP_KEYS,
        ),
        schema.FORMAT_END_TO_END_ID: _existing_or_not(known.end_to_end_ids, OWN_END_TO_END_IDS),
        schema.FORMAT_TRANSACTION_ID: _existing_or_not(known.transaction_ids, UNKNOWN_IDS),
        schema.FORMAT_MED_CASE_ID: _existing_or_not(known.med_case_ids, UNKNOWN_IDS),
        schema.FORMAT_WEBHOOK_ID: _existing_or_not(known.webhook_ids, UNKNOWN_IDS),
    }
    import schemathesis

    for name, strategy in strategies.items():
        schemathesis.openapi.format(name, strategy)


# -- the served database ----------------------------------------------------------------


class Served:
    def __init__(self, server: ServerProcess, credentials: Credentials, db: Path) -> None:
        self.server = server
        self.credentials = credentials
        self.db = db
        self.http = http_client(server.base_url)


def seed(db: Path) -> Credentials:
    """A merchant with money, three received PIX and a MED case on one of them."""
    seeded = seed_merchant(db, balance_centavos=100_000_000, received_centavos=(50_000,) * 3)
    sandbox = Sandbox(path=db, start=datetime.now(UTC))
    try:
        sandbox.open_med_case(seeded.received_ids[0], reason="FRAUD")
    finally:
        sandbox.engine.store.close()
    return seeded.credentials


def discover(served: Served) -> Known:
    """A charge, a cash-out and a subscription made through the API, then every id the
    merchant can list: what the format generators draw real ids from."""
    credentials = served.credentials
    charge = {"amount": 1_000, "tag": "fuzz", "external_id": "fuzz-1"}
    for path, body in (
        ("/pix/cash-in", charge),
        ("/pix/cash-out", {"amount": 1_000, "pix_key": SETTLING_KEY}),
        ("/webhooks", {"url": "https://hooks.example.com/pix"}),
    ):
        answer = post(served.http, path, body, credentials)
        assert answer.status_code < 300, answer.text
    statement = get(served.http, "/statement", credentials, per_page=100).json()["data"]
    charges = get(served.http, "/transactions/tag/fuzz", credentials).json()["data"]
    cases = get(served.http, "/med", credentials).json()["data"]
    hooks = get(served.http, "/webhooks", credentials).json()["data"]
    rows = [*statement, *charges]
    return Known(
        transaction_ids=sorted({row["transaction_id"] for row in rows}),
        end_to_end_ids=sorted({row["end_to_end_id"] for row in rows if row.get("end_to_end_id")}),
        med_case_ids=[case["id"] for case in cases],
        webhook_ids=[hook["id"] for hook in hooks],
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("fuzz") / "pix.db"
    credentials = seed(db)
    server = ServerProcess(db).start()
    try:
        served = Served(server, credentials, db)
        yield served
        served.http.close()
    finally:
        server.stop()
    assert integrity(db) == "ok"
    assert file_violations(db) == []


@pytest.fixture(scope="module")
def served_schemas(served: Served) -> dict[bool, Any]:
    """The documents as the running server publishes them, by camelCase or not, without
    the headers the signing hook owns (`hmac`, `X-Key-Case`): generating them would only
    fuzz our own hook."""
    import schemathesis

    register_formats(discover(served))
    found: dict[bool, Any] = {}
    for camel, query in ((False, {}), (True, {"key_case": "camelCase"})):
        document = served.http.get("/openapi.json", params=query).json()
        found[camel] = schemathesis.openapi.from_dict(without_owned_headers(document))
    return found


OWNED_PARAMETERS = ("#/components/parameters/Hmac", "#/components/parameters/XKeyCase")


def without_owned_headers(document: dict[str, Any]) -> dict[str, Any]:
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "parameters" in operation:
                operation["parameters"] = [
                    p for p in operation["parameters"] if p.get("$ref") not in OWNED_PARAMETERS
                ]
    return document


def operations() -> list[tuple[str, str]]:
    """(method, path) of every operation, read from the engine's document at collection;
    the test itself generates from the served copy and fails if one is missing there."""
    document = json.loads(openapi.document_bytes())
    return [
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete") and not path.startswith("/sandbox/")
    ]


# -- sending a case as a merchant's code would ----------------------------------------


def integers_as_integers(value: Any) -> Any:
    """JSON Schema counts `356.0` as the integer 356 and the generator spells integers so
    at times; the API wants integers written as integers (its document says so, and
    tests/engine/test_payouts.py, test_refunds.py and test_charges.py check that `100.0`
    is a 400), so they are sent as `356`: the same JSON Schema value, spelled as a
    merchant's code spells an integer."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {name: integers_as_integers(item) for name, item in value.items()}
    if isinstance(value, list):
        return [integers_as_integers(item) for item in value]
    return value


def send(served: Served, case: Any, camel: bool) -> httpx.Response:
    """The case as a merchant's code would send it: our credentials, the body serialised
    once, signed over those bytes (a camelCase case's body is camelCase already: it was
    generated from the camelCase document)."""
    from schemathesis.core import NotSet

    kwargs = case.as_transport_kwargs(base_url=served.server.base_url)
    headers = {
        name: value
        for name, value in (case.headers or {}).items()
        if name.lower() not in ("authorization", "hmac", "content-type", "x-key-case")
    }
    headers["authorization"] = auth_header(served.credentials)
    content: bytes | None = None
    if case.body is not None and not isinstance(case.body, NotSet):
        if isinstance(case.body, bytes):  # a negative case's raw body, sent as generated
            content = case.body
        else:
            payload = integers_as_integers(case.body)
            content = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
        headers["content-type"] = case.media_type or "application/json"
        headers["hmac"] = wire.sign(content, served.credentials.client_secret)
    if camel:
        headers["x-key-case"] = "camelCase"
    return served.http.request(
        case.method, kwargs["url"], params=kwargs.get("params"), headers=headers, content=content
    )


def check_case(served: Served, case: Any, camel: bool, mode: GenerationMode) -> None:
    from schemathesis.generation.modes import GenerationMode

    response = send(served, case, camel)
    assert response.status_code < 500, response.text
    assert leaks(response.text, (served.credentials.client_secret,)) == []
    if mode is GenerationMode.POSITIVE:
        problem = acceptance_problem(case, response)
        assert problem is None, problem
    case.validate_response(response, checks=checks())


@pytest.mark.parametrize("camel", [False, True], ids=["snake_case", "camelCase"])
@pytest.mark.parametrize(("method", "path"), operations())
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    phases=(Phase.explicit, Phase.generate),  # bounded: report the first failure unshrunk
)
@given(data=st.data())
def test_operation_holds_under_fuzzing(
    served: Served,
    served_schemas: dict[bool, Any],
    method: str,
    path: str,
    camel: bool,
    data: st.DataObject,
) -> None:
    from schemathesis.generation.modes import GenerationMode

    operation = served_schemas[camel][path][method]
    mode = data.draw(st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE]))
    case = data.draw(operation.as_strategy(generation_mode=mode))
    check_case(served, case, camel, mode)


def test_refusal_causes_are_read_from_every_body_shape() -> None:
    """The classifier that decides whether a refusal is explained reads each shape."""

    def answer(status: int, body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(status, json=body)

    format_a = {"status": "failed", "errors": [{"code": "DICT_KEY_NOT_FOUND", "message": "x"}]}
    assert refusal_cause(answer(400, format_a)) == "dict_key_not_found"
    assert refusal_cause(answer(404, {"worked": False, "detail": "Transaction not found"})) == (
        "not_found"
    )
    assert refusal_cause(answer(404, {"worked": False, "errors": {"notFound": "x"}})) == (
        "not_found"
    )
    refund = "refund amount R$ 9,00 exceeds the original transaction amount: ..."
    assert refusal_cause(answer(422, {"errors": {"unprocessable_entity": refund}})) == (
        "refund_over_remaining"
    )
    inverted = {"errors": {"badRequest": {"dateFrom": ["must not be after date_to"]}}}
    assert refusal_cause(answer(400, inverted)) == "date_range_inverted"
    shape = {"worked": False, "errors": {"bad_request": "invalid pix_key"}}
    assert not re.search("dict|not_found", refusal_cause(answer(400, shape)))
    reused = {"error": {"status": 422, "message": "Idempotency-Key was already used with ..."}}
    assert refusal_cause(answer(422, reused)) == "idempotency_key_reused"
    assert all(entry.status != 400 or "bad_request" not in entry.causes for entry in EXPLAINED)
