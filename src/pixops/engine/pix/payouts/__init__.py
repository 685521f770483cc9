"""Cash-out: acceptance checks, the DICT lookup and its retry queue, holds, and the
state machine that the central bank's answers (or their absence) drive.

    accept ──► pending_approval ──approve──► dispatch        (dual control)
    accept ──► dispatch ──► queued ──retry every 3 s──► dispatch
                    │          └──7200 s──► failed DICT_QUEUE_TIMEOUT
                    ├──► refused (synchronous: nothing written)
                    └──► processing ──pacs.002 ACSC──► settled
                                    ├─pacs.002 RJCT──► rejected
                                    └─30 min silent──► failed orphan_force_voided

Amount plus fee is held from acceptance; the hold is captured (and the debits
posted) on settlement, released on any other end. A refusal met during a
background step (an approval, a retry) fails the payout with the same code it
would have had synchronously.

Modules: `_request` (acceptance), `_dispatch` (directory lookup, hand-over to the
central bank), `_queue` (the DICT retry queue), `_answers` (pacs.002, orphan watchdog,
settle / reject / fail), `_approval` (dual control), `_rows` (finding a payout).
"""

from pixops.engine.pix.payouts._answers import ORPHAN_REASON
from pixops.engine.pix.payouts._approval import approve_payout, deny_payout
from pixops.engine.pix.payouts._dispatch import PROVIDER_ERRORS
from pixops.engine.pix.payouts._request import PayoutRequest, create_payout
from pixops.engine.pix.payouts._rows import find_payout

__all__ = [
    "ORPHAN_REASON",
    "PROVIDER_ERRORS",
    "PayoutRequest",
    "approve_payout",
    "create_payout",
    "deny_payout",
    "find_payout",
]
