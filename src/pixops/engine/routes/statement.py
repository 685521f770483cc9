"""`GET /statement`: the account's movements, newest first, with filters and pages."""

from __future__ import annotations

from pixops.engine.http import Reply
from pixops.engine.merchants import require_merchant
from pixops.engine.queries import Reader, read_list_query
from pixops.engine.routing import Context


def get_statement(ctx: Context) -> Reply:
    filters, page = read_list_query(ctx.query)
    merchant = require_merchant(ctx.conn, ctx.merchant_id)
    reader = Reader(ctx.conn, merchant, ctx.now, ctx.engine.config.service_ispb)
    items = reader.statement_encoded(filters, page)
    return Reply(200, {"worked": True, "data": items, "page": page.page, "per_page": page.per_page})
