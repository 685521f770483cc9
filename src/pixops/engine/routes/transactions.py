"""`GET /transactions...`: one record by id, end-to-end id, tag or external id; receipts; lists.

A record answers in the shape its state calls for (see `pixops.engine.queries`). An id
of another merchant is answered exactly like an unknown one.
"""

from __future__ import annotations

from pixops import limits
from pixops.engine.http import JSONObject, Reply, bad_request, detail_error, unprocessable
from pixops.engine.merchants import require_merchant
from pixops.engine.pix.records import EXTERNAL_ID_PATTERN, TAG_PATTERN
from pixops.engine.queries import Found, Reader, read_list_query, read_page_query
from pixops.engine.routing import Context
from pixops.engine.rows import TransactionRow
from pixops.ids import is_end_to_end_id, is_strict_end_to_end_id

NOT_FOUND = "Transaction not found"


def _reader(ctx: Context) -> Reader:
    merchant = require_merchant(ctx.conn, ctx.merchant_id)
    return Reader(ctx.conn, merchant, ctx.now, ctx.engine.config.service_ispb)


def _one(reader: Reader, found: Found | None) -> Reply:
    if found is None:
        raise detail_error(404, NOT_FOUND)
    return Reply(200, {"worked": True, "data": reader.render(found)})


def get_transaction(ctx: Context) -> Reply:
    reader = _reader(ctx)
    return _one(reader, reader.resolve(ctx.params["id"]))


def by_end_to_end(ctx: Context) -> Reply:
    e2e = ctx.params["e2e_id"]
    if not (is_end_to_end_id(e2e, prefixes="ED") or is_strict_end_to_end_id(e2e, prefixes="ED")):
        raise bad_request(
            {
                "e2e_id": [
                    "must be an end-to-end ID: E or D, the 8-character institution code,"
                    " then 22 to 26 letters or digits"
                ]
            }
        )
    reader = _reader(ctx)
    return _one(reader, reader.resolve_end_to_end(e2e))


def _listed(ctx: Context, column: str, value: str) -> Reply:
    page = read_page_query(ctx.query)
    items = _reader(ctx).records_by(column, value, page)
    body: JSONObject = {"worked": True, "data": items, "page": page.page, "per_page": page.per_page}
    return Reply(200, body)


def by_tag(ctx: Context) -> Reply:
    tag = ctx.params["tag"]
    if TAG_PATTERN.fullmatch(tag) is None:
        raise bad_request(
            {
                "tag": [
                    f"must be 1 to {limits.TAG_MAX_CHARS} characters of "
                    f"{limits.EXTERNAL_ID_ALPHABET}"
                ]
            }
        )
    return _listed(ctx, "tag", tag)


def by_external_id(ctx: Context) -> Reply:
    external_id = ctx.params["external_id"]
    if EXTERNAL_ID_PATTERN.fullmatch(external_id) is None:
        raise bad_request(
            {
                "external_id": [
                    f"must be 1 to {limits.EXTERNAL_ID_MAX_CHARS} characters of "
                    f"{limits.EXTERNAL_ID_ALPHABET}"
                ]
            }
        )
    return _listed(ctx, "external_id", external_id)


def receipt(ctx: Context) -> Reply:
    reader = _reader(ctx)
    found = reader.resolve(ctx.params["id"])
    if found is None:
        raise detail_error(404, NOT_FOUND)
    if not isinstance(found.row, TransactionRow) or found.row.status != "settled":
        shown = reader.render(found)["status"]
        raise unprocessable(f"A receipt exists only for settled transactions; this one is {shown}")
    return Reply(200, {"worked": True, "data": reader.receipt(found.row)})


def list_transactions(ctx: Context) -> Reply:
    filters, page = read_list_query(ctx.query)
    items = _reader(ctx).statement_encoded(filters, page, with_tag=True)
    body: JSONObject = {"worked": True, "data": items, "page": page.page, "per_page": page.per_page}
    return Reply(200, body)
