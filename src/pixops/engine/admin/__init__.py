"""Sandbox test helpers over HTTP, the way Stripe's test helpers work.

Someone running `pixops serve` and calling it from curl, Java or Node needs what the
in-process `Sandbox` offers in Python: a payer paying a charge, a PIX arriving, a
counterparty returning a cash-out, the central bank opening and closing a MED case,
the second approver of a dual-control payout, new or revoked API keys, and (on a
`--manual-clock` server) time moving on. These routes live under `/sandbox/v1`, never
under `/api/external`, and take the admin token printed at start-up::

    helpers = TestHelpers(Sandbox.over(engine), new_admin_token())
    helpers.mount(engine)        # engine.handle now answers /sandbox/v1/...

    POST /sandbox/v1/charges/{transaction_id}/pay
    Authorization: Bearer adm_...

`add_to_openapi(document)` adds their description, under their own tag, to the
engine's OpenAPI document; `list_keys(conn)` is what `pixops keys list` shows.
"""

from pixops.engine.admin._app import TOKEN_PREFIX, TestHelpers, new_admin_token
from pixops.engine.admin._keys import KeyInfo, list_keys
from pixops.engine.admin._openapi import TAG, add_to_openapi, openapi_fragment
from pixops.engine.admin._routes import PREFIX, ROUTES, HelperRoute

__all__ = [
    "PREFIX",
    "ROUTES",
    "TAG",
    "TOKEN_PREFIX",
    "HelperRoute",
    "KeyInfo",
    "TestHelpers",
    "add_to_openapi",
    "list_keys",
    "new_admin_token",
    "openapi_fragment",
]
