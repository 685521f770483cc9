"""The test helpers' part of the OpenAPI 3.1 document, built from their route table.

`openapi_fragment()` returns the `paths`, the tag and the security scheme;
`add_to_openapi(document)` merges them into a whole document (one call from the
engine's document builder).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from pixops.engine.admin._routes import PREFIX, ROUTES, HelperRoute

TAG: Final = "Sandbox test helpers"
SECURITY_SCHEME: Final = "sandboxAdminToken"
_ROOT_SERVER: Final = {"url": "/", "description": "the server's root, not /api/external"}
_TAG_DESCRIPTION: Final = (
    "What payers, counterparties, the central bank and the portal do, on a server that runs "
    "as a sandbox (`pixops serve`, not `--production`). Authenticated with the admin token "
    "printed at start-up. Requests carry centavos; responses show base units (1 centavo = 100)."
)


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }


def _operation(route: HelperRoute) -> dict[str, Any]:
    parameters = [
        {"name": segment[1:], "in": "path", "required": True, "schema": {"type": "string"}}
        for segment in route.pattern.split("/")
        if segment.startswith(":")
    ]
    success = "201" if route.created else "200"
    operation: dict[str, Any] = {
        "tags": [TAG],
        "summary": route.summary,
        "operationId": "sandbox_" + route.helper.__name__,
        "security": [{SECURITY_SCHEME: []}],
        "responses": {
            success: {
                "description": "done; the result in `data`",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["worked", "data"],
                            "properties": {"worked": {"const": True}, "data": {}},
                        }
                    }
                },
            },
            "400": _error("malformed body, unknown field or a value out of range"),
            "401": _error("missing or wrong admin token"),
            "403": _error("the server does not run as a sandbox (--production)"),
            "404": _error("no such merchant, key, charge, transaction or case"),
            "422": _error("the sandbox refuses the action in the object's current state"),
        },
    }
    if route.pattern == "/clock/advance":
        operation["responses"]["409"] = _error("the server's clock follows real time")
    if parameters:
        operation["parameters"] = parameters
    if route.method == "POST":
        schema: dict[str, Any] = {
            "type": "object",
            "additionalProperties": False,
            "properties": copy.deepcopy(route.fields),
        }
        if route.required:
            schema["required"] = list(route.required)
        # Documented as required (send `{}` for no options) so every generated request is
        # JSON with its content type; the server also takes an empty body as `{}`.
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": schema}},
        }
        operation["responses"]["415"] = _error("a body that is not application/json")
    return operation


def _openapi_path(pattern: str) -> str:
    return PREFIX + "/".join(
        "{" + part[1:] + "}" if part.startswith(":") else part for part in pattern.split("/")
    )


def openapi_fragment() -> dict[str, Any]:
    """`{"paths": …, "tags": [tag], "securitySchemes": {…}}` of the test helpers."""
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        # The API's paths are relative to /api/external; these hang off the server's root.
        item = paths.setdefault(_openapi_path(route.pattern), {"servers": [dict(_ROOT_SERVER)]})
        item[route.method.lower()] = _operation(route)
    return {
        "paths": paths,
        "tags": [{"name": TAG, "description": _TAG_DESCRIPTION}],
        "securitySchemes": {
            SECURITY_SCHEME: {
                "type": "http",
                "scheme": "bearer",
                "description": "the admin token printed by `pixops serve` at start-up",
            }
        },
    }


def add_to_openapi(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with the test helpers' paths, tag and security scheme added (in place)."""
    if not isinstance(document, dict):
        raise TypeError("add_to_openapi() takes an OpenAPI document (a dict)")
    fragment = openapi_fragment()
    document.setdefault("paths", {}).update(fragment["paths"])
    tags = document.setdefault("tags", [])
    if all(tag.get("name") != TAG for tag in tags):
        tags.extend(fragment["tags"])
    components = document.setdefault("components", {})
    components.setdefault("securitySchemes", {}).update(fragment["securitySchemes"])
    return document
