"""The OpenAPI document of the API's camelCase mode (`X-Key-Case: camelCase`).

With that header the service takes and answers every JSON key in camelCase
(`endToEndId`, `errors.badRequest.dateFrom`); a client generated from the snake_case
document would read none of its fields. This document is the snake_case one with every
property name, required name and discriminator turned by `pixops.wire.to_camel`, the
rule the service itself applies, so the two cannot drift: the same models, one
transformation. Query parameters are named in camelCase too (the service reads either),
and `X-Key-Case: camelCase` is a required header. It is served at
`GET /api/external/openapi.json?key_case=camelCase`; each document links to the other.
The sandbox's test helpers (`/sandbox/v1`) answer snake_case only and are left out.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from pixops import wire

__all__ = ["CAMEL_QUERY", "camel_case_document", "link_camel_case_document"]

#: Where the camelCase document is, relative to the API's root (the `servers` URL).
CAMEL_QUERY: Final = "openapi.json?key_case=camelCase"
_SNAKE: Final = "openapi.json"
_LINK: Final = (
    f" The camelCase mode is described by its own document, `{CAMEL_QUERY}`: generate"
    " a client from that one to speak camelCase."
)
#: Keywords whose value is a JSON value of the wire (camelCased by the service too).
_VALUES: Final = ("default", "const", "enum", "example", "examples")


def link_camel_case_document(document: dict[str, Any]) -> dict[str, Any]:
    """`document` (the snake_case one) naming the camelCase document (in place)."""
    info = document["info"]
    info["description"] += _LINK
    info["x-key-case-documents"] = {"snake_case": _SNAKE, "camelCase": CAMEL_QUERY}
    return document


def camel_case_document(document: dict[str, Any]) -> dict[str, Any]:
    """The camelCase twin of the snake_case `document` (which is left unchanged)."""
    camel: dict[str, Any] = copy.deepcopy(document)
    camel["paths"] = {
        path: _schema_names(item)
        for path, item in camel["paths"].items()
        if not path.startswith("/sandbox/")
    }
    components = camel["components"]
    components["schemas"] = {
        name: _schema_names(schema) for name, schema in components["schemas"].items()
    }
    components["responses"] = _schema_names(components["responses"])
    components["headers"] = _schema_names(components["headers"])
    components["securitySchemes"] = {
        name: scheme
        for name, scheme in components["securitySchemes"].items()
        if name in ("ApiKey", "Basic")
    }
    for parameter in components["parameters"].values():
        parameter["schema"] = _schema_names(parameter["schema"])
        if parameter["in"] == "query":
            parameter["name"] = wire.to_camel(parameter["name"])
    components["parameters"]["XKeyCase"] = {
        "name": "X-Key-Case",
        "in": "header",
        "required": True,
        "description": "camelCase: every request and response key is in camelCase",
        "schema": {"type": "string", "const": "camelCase"},
    }
    used = {
        tag
        for item in camel["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for tag in operation.get("tags", ())
    }
    camel["tags"] = [tag for tag in camel["tags"] if tag["name"] in used]
    info = camel["info"]
    info["title"] += " (camelCase keys)"
    info["description"] = (
        "This document describes the camelCase mode: every request carries"
        " `X-Key-Case: camelCase`, and every JSON key of a request and of an answer is"
        " camelCase (`end_to_end_id` is `endToEndId`, `errors.bad_request.date_from` is"
        f" `errors.badRequest.dateFrom`). The snake_case document is `{_SNAKE}`. "
        + document["info"]["description"].replace(_LINK, "")
    )
    info["x-key-case-documents"] = {"snake_case": _SNAKE, "camelCase": CAMEL_QUERY}
    return camel


def _schema_names(node: Any) -> Any:
    """`node` (a schema, or any part of the document holding schemas) with the names
    of JSON object members in camelCase: `properties` keys, `required` names, a
    discriminator's property; JSON values (`default`, `enum`...) as the service sends
    them. Two names of one object that become one: ValueError (a model to rename)."""
    if isinstance(node, list):
        return [_schema_names(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            renamed = {wire.to_camel(name): _schema_names(sub) for name, sub in value.items()}
            if len(renamed) != len(value):
                raise ValueError(f"two properties become one in camelCase: {sorted(value)}")
            out[key] = renamed
        elif key == "required" and isinstance(value, list):
            out[key] = [wire.to_camel(name) if isinstance(name, str) else name for name in value]
        elif key == "discriminator" and isinstance(value, dict):
            out[key] = {**value, "propertyName": wire.to_camel(str(value["propertyName"]))}
        elif key == "responses" and isinstance(value, dict):  # status -> response ("default")
            out[key] = {status: _schema_names(answer) for status, answer in value.items()}
        elif key in _VALUES:
            out[key] = wire.camelize_keys(value)
        else:
            out[key] = _schema_names(value)
    return out
