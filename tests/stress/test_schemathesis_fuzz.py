"""Schemathesis against the OpenAPI document that `pixops serve` publishes, for every
operation, with valid credentials and every body signed over its exact bytes, in
snake_case and in camelCase (`X-Key-Case`).

Checks: no 5xx, no leak, status codes, content types, headers and bodies inside the
document (camelCase answers are converted back to snake_case first), and
schema-invalid requests refused. Whether schema-valid requests are accepted is
reported, not asserted, by benchmarks/fuzz_long.py: the document cannot express check
digits or registered keys, so a business refusal of a well-formed body is correct.

Bounded for the suite by `STRESS_FUZZ_EXAMPLES` (default 6 per operation and casing);
benchmarks/fuzz_long.py runs the same test with many more.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pixops import wire
from pixops.engine import openapi
from tests.stress._harness import (
    Credentials,
    ServerProcess,
    auth_header,
    file_violations,
    integrity,
    leaks,
    seed_merchant,
)

EXAMPLES = int(os.environ.get("STRESS_FUZZ_EXAMPLES", "6"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


class Served:
    def __init__(self, server: ServerProcess, credentials: Credentials, db: Path) -> None:
        self.server = server
        self.credentials = credentials
        self.db = db
        self.http = httpx.Client(base_url=server.base_url, timeout=30, trust_env=False)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("fuzz") / "pix.db"
    seeded = seed_merchant(db, balance_centavos=100_000_000, received_centavos=(50_000,) * 3)
    server = ServerProcess(db).start()
    try:
        served = Served(server, seeded.credentials, db)
        yield served
        served.http.close()
    finally:
        server.stop()
    assert integrity(db) == "ok"
    assert file_violations(db) == []


@pytest.fixture(scope="module")
def served_schema(served: Served) -> Any:
    """The document as the running server publishes it, without the headers the signing
    hook owns (`hmac`, `X-Key-Case`): generating them would only fuzz our own hook."""
    document = served.http.get("/openapi.json").json()
    return schemathesis.openapi.from_dict(without_owned_headers(document))


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


def send(served: Served, case: Any, camel: bool) -> httpx.Response:
    """The case as a merchant's code would send it: our credentials, the body serialised
    once, signed over those bytes, keys converted when camelCase is asked for."""
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
            payload = wire.camelize_keys(case.body) if camel else case.body
            content = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
        headers["content-type"] = case.media_type or "application/json"
        headers["hmac"] = wire.sign(content, served.credentials.client_secret)
    if camel:
        headers["x-key-case"] = "camelCase"
    return served.http.request(
        case.method, kwargs["url"], params=kwargs.get("params"), headers=headers, content=content
    )


def as_snake(response: httpx.Response) -> httpx.Response:
    """A camelCase answer with its keys converted back, to check it against the document."""
    try:
        body = response.json()
    except ValueError:
        return response
    converted = json.dumps(wire.snakify_keys(body)).encode()
    headers = {**response.headers, "content-length": str(len(converted))}
    snake = httpx.Response(
        response.status_code, headers=headers, content=converted, request=response.request
    )
    snake._elapsed = response.elapsed  # read by schemathesis' response-time check
    return snake


def check_case(served: Served, case: Any, camel: bool) -> None:
    response = send(served, case, camel)
    assert response.status_code < 500, response.text
    assert leaks(response.text, (served.credentials.client_secret,)) == []
    checked = as_snake(response) if camel else response
    case.validate_response(checked, checks=CHECKS)


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
    served: Served, served_schema: Any, method: str, path: str, camel: bool, data: st.DataObject
) -> None:
    operation = served_schema[path][method]
    mode = data.draw(st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE]))
    case = data.draw(operation.as_strategy(generation_mode=mode))
    check_case(served, case, camel)
