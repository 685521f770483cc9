"""Engine settings, with the spec's values as defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

from pixops import limits

#: The sandbox institution's own ISPB. Deliberately not a real participant's code,
#: so that no simulated transfer ever claims to come from a real bank.
SERVICE_ISPB = "99999999"
SERVICE_NAME = "PIXOPS SANDBOX IP"


@dataclass(frozen=True)
class EngineConfig:
    rate_limit_per_minute: int = 90_000
    max_body_bytes: int = limits.BODY_MAX_BYTES
    trusted_proxies: frozenset[str] = field(default_factory=frozenset)
    idempotency_ttl_seconds: int = 24 * 3600
    service_ispb: str = SERVICE_ISPB
    qr_lifetime_seconds: int = 3600
    settlement_latency_seconds: int = 2
    charge_link_delay_seconds: int = 0
    dict_lookups_per_minute: int = 600
    queue_retry_seconds: int = 3
    queue_ttl_seconds: int = 7200
    orphan_after_seconds: int = 1800
    ceiling_base: int = 100_000_00 * 100
    #: Threads delivering webhooks under the wall clock (one subscription at a time each).
    webhook_workers: int = 8
