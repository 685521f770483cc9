"""What `pixops serve` can be told, checked; kept apart from `pixops.server` so that the
command line can offer the choices without importing the engine and uvicorn."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["HTTP_IMPLEMENTATIONS", "LOOP_IMPLEMENTATIONS", "ServeOptions"]

HTTP_IMPLEMENTATIONS = ("auto", "h11", "httptools")
LOOP_IMPLEMENTATIONS = ("auto", "asyncio", "uvloop")


@dataclass(frozen=True)
class ServeOptions:
    """Everything `pixops serve` can be told."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    rate_limit_per_minute: int = 90_000
    trusted_proxies: tuple[str, ...] = field(default_factory=tuple)
    http: str = "auto"
    loop: str = "auto"
    log_level: str = "warning"
    sandbox: bool = True
    manual_clock: bool = False

    def __post_init__(self) -> None:
        if self.manual_clock and not self.sandbox:
            raise ValueError("a manual clock needs sandbox mode (a production server keeps time)")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and a key")
        if not 0 <= self.port <= 65535:
            raise ValueError("port must be between 0 and 65535")
        if self.rate_limit_per_minute < 1:
            raise ValueError("rate limit must be at least 1 request per minute")
        if self.http not in HTTP_IMPLEMENTATIONS:
            raise ValueError(f"http must be one of {', '.join(HTTP_IMPLEMENTATIONS)}")
        if self.loop not in LOOP_IMPLEMENTATIONS:
            raise ValueError(f"loop must be one of {', '.join(LOOP_IMPLEMENTATIONS)}")
        for proxy in self.trusted_proxies:
            ipaddress.ip_address(proxy)

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None
