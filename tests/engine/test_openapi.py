"""The OpenAPI document: well formed, complete against the router, true to real answers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pixops import wire
from pixops.engine.admin import add_to_openapi
from pixops.engine.openapi import OPENAPI_VERSION, build_openapi, document_bytes
from pixops.engine.routes import ROUTES
from pixops.sandbox import ApiKey, Sandbox
from pixops.server import PixopsServer, ServeOptions, build_engine

DOC = build_openapi()
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def resolve(ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = DOC
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for name, value in node.items():
            if name == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in DOC["paths"].items():
        for method, operation in item.items():
            assert method in METHODS
            yield path, method, operation


# -- a JSON Schema checker for the keywords the document uses ------------------------

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_KNOWN = {
    "$ref", "type", "properties", "required", "additionalProperties", "items", "oneOf",
    "const", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum", "minItems",
    "maxItems", "minProperties", "description", "format", "default", "anyOf", "discriminator",
}  # fmt: skip


def violations(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    unknown = set(schema) - _KNOWN
    assert not unknown, f"checker does not know {unknown}"
    if "$ref" in schema:
        return violations(value, resolve(schema["$ref"]), where)
    if "anyOf" in schema:
        if any(not violations(value, option, where) for option in schema["anyOf"]):
            return []
        return [f"{where}: matches none of anyOf"]
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not violations(value, s, where)]
        return [] if len(matching) == 1 else [f"{where}: matches {len(matching)} of oneOf"]
    found: list[str] = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[kind](value) for kind in kinds):
            return [f"{where}: {value!r} is not {kinds}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{where}: {value!r} does not match {schema['pattern']}")
        if len(value) > schema.get("maxLength", len(value)):
            found.append(f"{where}: longer than {schema['maxLength']}")
    if _TYPES["integer"](value) and not (
        schema.get("minimum", value) <= value <= schema.get("maximum", value)
    ):
        found.append(f"{where}: {value} out of range")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                found.append(f"{where}: missing {name}")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found += violations(item, properties[name], f"{where}.{name}")
            elif extra is False:
                found.append(f"{where}: unexpected {name}")
            elif isinstance(extra, dict):
                found += violations(item, extra, f"{where}.{name}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            found.append(f"{where}: fewer than {schema['minItems']} items")
        for index, item in enumerate(value):
            found += violations(item, schema.get("items", {}), f"{where}[{index}]")
    return found


# -- the document's shape --------------------------------------------------------------


def test_document_is_structurally_openapi_3_1() -> None:
    assert DOC["openapi"] == OPENAPI_VERSION == "3.1.0"
    assert DOC["info"]["title"]
    assert DOC["info"]["version"]
    assert DOC["servers"] == [
        {"url": "/api/external", "description": DOC["servers"][0]["description"]}
    ]
    schemes = DOC["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {**schemes["ApiKey"], "type": "apiKey", "in": "header",
                                 "name": "Authorization"}  # fmt: skip
    assert schemes["Basic"]["type"] == "http"
    assert schemes["Basic"]["scheme"] == "basic"
    assert DOC["security"] == [{"ApiKey": []}, {"Basic": []}]
    for ref in refs(DOC):
        resolve(ref)
    operation_ids = [operation["operationId"] for _, _, operation in operations()]
    assert len(operation_ids) == len(set(operation_ids))
    for path, _, operation in operations():
        assert path.startswith("/")
        assert any(code.startswith("2") for code in operation["responses"])
        for code, response in operation["responses"].items():
            assert re.fullmatch(r"[1-5][0-9][0-9]", code)
            assert "description" in (resolve(response["$ref"]) if "$ref" in response else response)
        placeholders = set(re.findall(r"{([^}]+)}", path))
        declared = {p["name"] for p in operation.get("parameters", []) if p.get("in") == "path"}
        assert placeholders == declared
        for parameter in operation.get("parameters", []):
            parameter = resolve(parameter["$ref"]) if "$ref" in parameter else parameter
            assert {"name", "in", "schema"} <= set(parameter)
            assert parameter["in"] in ("path", "query", "header", "cookie")


def test_the_four_error_shapes_and_the_headers_are_components() -> None:
    schemas = DOC["components"]["schemas"]
    for name in ("PipelineError", "PermissionError", "DetailError", "BusinessError"):
        assert name in schemas
    assert not violations({"error": {"status": 401, "message": "x"}}, schemas["PipelineError"])
    assert not violations(
        {"error": "forbidden", "message": "API key lacks permission: pix:read"},
        schemas["PermissionError"],
    )
    assert not violations(
        {"worked": False, "detail": "Missing HMAC header"}, schemas["DetailError"]
    )
    assert not violations(
        {"worked": False, "errors": {"bad_request": {"cpf": ["is required"]}}},
        schemas["BusinessError"],
    )
    parameters = DOC["components"]["parameters"]
    assert parameters["Hmac"]["name"] == "hmac"
    assert parameters["IdempotencyKey"]["schema"]["maxLength"] == 256
    assert parameters["XKeyCase"]["schema"]["enum"] == ["camelCase", "snake_case"]
    assert "RateLimitRemaining" in DOC["components"]["headers"]
    assert DOC["components"]["headers"]["RetryAfter"]["schema"]["const"] == 60


def test_every_route_appears_with_its_method_and_permission() -> None:
    assert len(ROUTES) == 19
    for route in ROUTES:
        path = re.sub(r":([a-z_0-9]+)", r"{\1}", route.pattern)
        operation = DOC["paths"][path][route.method.lower()]
        assert operation["x-permission"] == route.permission
        assert f"`{route.permission}`" in operation["description"]
        assert operation["operationId"] == route.handler.__name__
        assert "security" not in operation
    documented = {(p, m) for p, m, _ in operations()}
    routed = {(re.sub(r":([a-z_0-9]+)", r"{\1}", r.pattern), r.method.lower()) for r in ROUTES}
    assert documented - routed == {("/openapi.json", "get")}
    assert DOC["paths"]["/openapi.json"]["get"]["security"] == []


def test_pipeline_steps_are_documented_per_method() -> None:
    for path, method, operation in operations():
        if path == "/openapi.json":
            continue
        names = {
            resolve(p["$ref"])["name"] if "$ref" in p else p["name"]
            for p in operation["parameters"]
        }
        responses = operation["responses"]
        success = next(r for code, r in responses.items() if code.startswith("2"))
        assert "X-Key-Case" in names
        assert {"401", "403", "500"} <= set(responses)
        if method == "post":
            assert {"hmac", "Idempotency-Key"} <= names
            assert {"415", "413"} <= set(responses)
            assert "requestBody" in operation
            assert "X-Idempotent-Replay" in success["headers"]
        else:
            assert "hmac" not in names
        if (path, method) == ("/balance", "get"):
            assert "429" not in responses
            assert "headers" not in success
        else:
            assert "429" in responses
            assert "x-ratelimit-remaining" in success["headers"]


# -- served the same both ways --------------------------------------------------------


def test_served_without_auth_and_byte_identical_in_process_and_over_http() -> None:
    sandbox = Sandbox()
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox") as client:
        in_process = client.get("/api/external/openapi.json")
        posted = client.post("/api/external/openapi.json", content=b"{}")
    options = ServeOptions(port=0)
    with PixopsServer(build_engine(options), options) as server:
        over_http = httpx.get(server.base_url + "/api/external/openapi.json")
    assert in_process.status_code == over_http.status_code == 200
    assert in_process.content == over_http.content == document_bytes()
    assert over_http.headers["content-type"] == "application/json"
    assert json.loads(over_http.content) == add_to_openapi(build_openapi())
    assert posted.status_code == 415


# -- real answers follow the documented schemas --------------------------------------


class Recorder:
    """Raw requests through the sandbox; every answer is checked against the document."""

    def __init__(self, sandbox: Sandbox, key: ApiKey) -> None:
        self.client = httpx.Client(transport=sandbox.transport(), base_url="http://sandbox")
        self.key = key
        self.checked: set[tuple[str, str, str]] = set()

    def __call__(
        self, method: str, path: str, body: dict[str, Any] | None = None, **headers: str
    ) -> dict[str, Any]:
        written = {"authorization": f"ApiKey {self.key.client_id}:{self.key.client_secret}"}
        content = b""
        if body is not None:
            content = wire.canonical_json(body)
            written |= {"content-type": "application/json",
                        "hmac": wire.sign(content, self.key.client_secret)}  # fmt: skip
        written |= {name.replace("_", "-"): value for name, value in headers.items()}
        response = self.client.request(
            method, "/api/external" + path, content=content, headers=written
        )
        template = self.template(method, path)
        documented = DOC["paths"][template][method.lower()]["responses"]
        code = str(response.status_code)
        assert code in documented, f"{method} {path} answered undocumented {code}"
        entry = documented[code]
        entry = resolve(entry["$ref"]) if "$ref" in entry else entry
        schema = entry["content"]["application/json"]["schema"]
        problems = violations(response.json(), schema)
        assert not problems, f"{method} {path} {code}: {problems}"
        self.checked.add((template, method.lower(), code))
        body_json: dict[str, Any] = response.json()
        return body_json

    @staticmethod
    def template(method: str, path: str) -> str:
        bare = path.split("?", 1)[0]
        for route in ROUTES:
            if route.method == method and route.regex.match(bare):
                return re.sub(r":([a-z_0-9]+)", r"{\1}", route.pattern)
        raise AssertionError(f"no route for {method} {path}")


def test_real_answers_match_the_documented_schemas() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant(
        "Loja Doc", balance_centavos=1_000_000, document="11222333000181"
    )
    key = sandbox.issue_api_key(merchant.id)
    call = Recorder(sandbox, key)

    call("GET", "/balance")
    call("POST", "/cpf/validate", {"cpf": "529.982.247-25"})
    call("POST", "/cpf/validate", {})
    charge = call("POST", "/pix/cash-in", {"amount": 10_000, "tag": "doc", "external_id": "o-1"})
    call("POST", "/pix/cash-in", {"amount": True})
    qr_id = charge["data"]["transaction_id"]
    call("GET", f"/transactions/{qr_id}")
    credit = sandbox.pay_charge(qr_id, payer_name="Maria Silva", payer_document="52998224725")
    failed = sandbox.receive_pix(merchant.id, amount_centavos=500, fail_reason="AM02")
    maria = "maria.silva@sandbox.pixops.dev"
    payout = call("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": maria})
    call("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "queue.client@sandbox.pixops.dev"})
    call("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "instant@sandbox.pixops.dev"})
    call("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "notfound@sandbox.pixops.dev"})
    call("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "52998224725"})
    call("POST", "/pix/cash-out", {"amount": 0, "pix_key": maria})
    call("POST", "/pix/cash-out", {"amount": 10**9, "pix_key": maria})
    call("GET", f"/transactions/{payout['transaction_id']}")
    refund = call("POST", "/pix/refund", {"original_transaction_id": credit, "amount": 1_000})
    call("POST", "/pix/refund", {"original_transaction_id": "PIXINnope"})
    call("POST", "/pix/refund", {"original_transaction_id": credit, "amount": 10**7})
    sandbox.advance(minutes=5)
    for transaction_id in (credit, failed, payout["transaction_id"], refund["transaction_id"]):
        call("GET", f"/transactions/{transaction_id}")
    call("GET", "/transactions/PIXINnope")
    call("GET", f"/transactions/e2e/{payout['end_to_end_id']}")
    call("GET", f"/transactions/{credit}/receipt")
    call("GET", f"/transactions/{failed}/receipt")
    call("GET", "/transactions/tag/doc")
    call("GET", "/transactions/ref/o-1")
    call("GET", "/transactions?per_page=5")
    call("GET", "/statement")
    call("GET", "/statement?per_page=500")
    call("GET", "/pix/keys")
    url = sandbox.add_webhook_receiver(lambda headers, body: 200, name="doc")
    webhook = call("POST", "/webhooks", {"url": url, "event_types": ["pix.charge.paid"]})
    call("POST", "/webhooks", {"url": 5})
    call("GET", "/webhooks")
    call("DELETE", f"/webhooks/{webhook['data']['id']}")
    call("DELETE", "/webhooks/wh_nope")
    case = sandbox.open_med_case(credit, reason="FRAUD")
    call("GET", "/med")
    call("GET", f"/med/{case.id}")
    call("GET", "/med/med_nope")
    call("POST", f"/med/{case.id}/defense", {"defense": "Entregue ao cliente."})
    call("POST", f"/med/{case.id}/defense", {"defense": "de novo"})
    call("GET", "/balance", authorization="ApiKey cli_nope:sk_nope")
    call("GET", "/balance", x_forwarded_for="203.0.113.1")
    call("POST", "/cpf/validate", {"cpf": "1"}, hmac="00")
    limited = sandbox.issue_api_key(merchant.id, permissions=["account:read"])
    Recorder(sandbox, limited)("GET", "/statement")
    assert len({(path, method) for path, method, _ in call.checked}) == 19
    statuses = {code for _, _, code in call.checked}
    assert {"200", "201", "202", "400", "401", "404", "422"} <= statuses


def test_document_passes_the_openapi_3_1_validator() -> None:
    """The independent validator (openapi-spec-validator) accepts the whole document."""
    # Imported here: only this test reads it, and an xdist worker that never runs it
    # need not load it at collection.
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    document = build_openapi()
    validate(document)
    broken = {**document, "paths": {"/x": {"get": {"responses": {"200": {"schema": 1}}}}}}
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


def test_the_served_document_with_the_test_helpers_passes_the_validator() -> None:
    """The server-mode helper routes are merged into the generated document, validly."""
    from openapi_spec_validator import validate

    served = json.loads(document_bytes())
    validate(served)
    assert set(DOC["paths"]) < set(served["paths"])


def test_bodies_are_the_wire_models_of_pixops_schema() -> None:
    """Every request and success body is a component generated from `pixops.schema`."""
    from pixops.engine.config import SERVICE_ISPB
    from pixops.schema import component_schemas, end_to_end_pattern

    generated = component_schemas()
    # The one edit: a cash-out's own end-to-end id names this institution.
    own = generated["PayoutRequest"]["properties"]["end_to_end_id"]
    assert own["pattern"] == end_to_end_pattern()
    own["pattern"] = end_to_end_pattern(SERVICE_ISPB)
    assert DOC["components"]["schemas"] == generated
    for path, method, operation in operations():
        if path == "/openapi.json":
            continue
        if method == "post":
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert body["$ref"].startswith("#/components/schemas/")
        success = next(r for code, r in operation["responses"].items() if code.startswith("2"))
        assert success["content"]["application/json"]["schema"]["$ref"].startswith(
            "#/components/schemas/"
        )


def test_money_fields_say_their_unit() -> None:
    """Response amounts are int64 base units; request amounts are centavos."""
    schemas = DOC["components"]["schemas"]
    assert schemas["Balance"]["properties"]["balance"]["format"] == "int64"
    assert "base units" in schemas["StatementItem"]["properties"]["amount"]["description"]
    assert "centavos" in schemas["PayoutRequest"]["properties"]["amount"]["description"]
    assert schemas["PayoutRequest"]["properties"]["amount"]["minimum"] == 1


def test_path_identifiers_carry_the_rule_the_service_checks() -> None:
    """An id the schema admits is looked up (200 or 404); one it refuses is the 400."""
    paths = build_openapi()["paths"]

    def pattern(path: str, name: str) -> re.Pattern[str]:
        parameters = paths[path]["get"]["parameters"]
        (schema,) = [p["schema"] for p in parameters if p.get("name") == name]
        return re.compile(schema["pattern"])

    e2e = pattern("/transactions/e2e/{e2e_id}", "e2e_id")
    assert e2e.fullmatch("E12345678202601051200abcdefghijk")
    assert e2e.fullmatch("D99999999202602121126y7QdyPmy9xx")
    assert not e2e.fullmatch("X12345678202601051200abcdefghijk")
    tag = pattern("/transactions/tag/{tag}", "tag")
    assert tag.fullmatch("order:2026-01.a_b")
    assert not tag.fullmatch("x" * 65)
    assert not tag.fullmatch("has space")
    reference = pattern("/transactions/ref/{external_id}", "external_id")
    assert reference.fullmatch("x" * 128)
    assert not reference.fullmatch("x" * 129)


def test_the_served_document_names_the_engines_own_institution() -> None:
    """A cash-out's own `end_to_end_id` must carry the serving institution's ISPB, which
    is the engine's configuration, not the default."""
    from pixops.engine.config import SERVICE_ISPB, EngineConfig

    ours = "12345678"
    sandbox = Sandbox(config=EngineConfig(service_ispb=ours))
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox") as client:
        served = client.get("/api/external/openapi.json").json()
    pattern = served["components"]["schemas"]["PayoutRequest"]["properties"]["end_to_end_id"][
        "pattern"
    ]
    assert re.fullmatch(pattern[1:-1], f"E{ours}202601151230abcdefghijk")
    assert not re.fullmatch(pattern[1:-1], f"E{SERVICE_ISPB}202601151230abcdefghijk")
    default = json.loads(document_bytes())
    assert (
        default["components"]["schemas"]["PayoutRequest"]["properties"]["end_to_end_id"]["pattern"]
        != pattern
    )
