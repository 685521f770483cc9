"""`GET /pix/keys`: the merchant's own keys in the directory."""

from __future__ import annotations

from pixops.engine.clock import db_to_wire
from pixops.engine.http import Reply
from pixops.engine.routing import Context
from pixops.engine.world import directory


def list_keys(ctx: Context) -> Reply:
    entries = directory.merchant_keys(ctx.conn, ctx.merchant_id)
    return Reply(
        200,
        {
            "worked": True,
            "data": [
                {
                    "key": entry.key,
                    "key_type": entry.key_type,
                    "status": "active",
                    "created_at": db_to_wire(entry.created_at),
                    "owner_name": entry.owner_name,
                    "ispb": entry.ispb,
                }
                for entry in entries
            ],
        },
    )
