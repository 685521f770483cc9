"""The read side: query parameters, record shapes, the statement and receipts.

One record can answer in five shapes (see the spec's Resources):

* default: a settled row of `transactions` (inbound or outbound);
* failed inbound: a credit we refused;
* outbound in flight or failed: the cash-out query shape;
* reduced QR: a charge not paid (pending, expired, cancelled);
* QR fallback: a charge paid whose credit row is not stored yet.

Statement items are one flat shape for every row, with the display status
(`_status.py` holds the statement status mapping). Usage::

    filters, page = read_list_query(ctx.query)
    reader = Reader(conn, merchant_row, now, service_ispb)
    items = reader.statement(filters, page)
    found = reader.resolve("PIXIN...")
"""

from pixops.engine.queries._params import (
    DEFAULT_PER_PAGE,
    LIST_PARAMETERS,
    MAX_PAGE,
    MAX_PER_PAGE,
    PAGE_PARAMETERS,
    STATUS_FILTERS,
    TYPE_FILTERS,
    ListFilters,
    Page,
    read_list_query,
    read_page_query,
)
from pixops.engine.queries._reader import Found, Reader
from pixops.engine.queries._receipt import receipt
from pixops.engine.queries._shapes import (
    default_shape,
    failed_inbound_shape,
    mask_document,
    outbound_shape,
    qr_fallback_shape,
    qr_shape,
)
from pixops.engine.queries._statement import statement_item
from pixops.engine.queries._status import statement_status

__all__ = [
    "DEFAULT_PER_PAGE",
    "LIST_PARAMETERS",
    "MAX_PAGE",
    "MAX_PER_PAGE",
    "PAGE_PARAMETERS",
    "STATUS_FILTERS",
    "TYPE_FILTERS",
    "Found",
    "ListFilters",
    "Page",
    "Reader",
    "default_shape",
    "failed_inbound_shape",
    "mask_document",
    "outbound_shape",
    "qr_fallback_shape",
    "qr_shape",
    "read_list_query",
    "read_page_query",
    "receipt",
    "statement_item",
    "statement_status",
]
