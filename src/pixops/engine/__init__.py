"""The service itself: pipeline, routes, domain, storage and scheduler, framework-free.

Public entry points are `Engine` (one call per HTTP request) and its adapters; the
notebook- and test-facing surface is `pixops.sandbox.Sandbox`.
"""

from pixops.engine.adapters import AsgiApp, AsyncEngineTransport, EngineTransport
from pixops.engine.clock import ManualClock, WallClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.store import Store

__all__ = [
    "AsgiApp",
    "AsyncEngineTransport",
    "Engine",
    "EngineConfig",
    "EngineTransport",
    "ManualClock",
    "Store",
    "WallClock",
]
