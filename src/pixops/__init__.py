"""pixops: operate and analyse a PIX account, with an embedded sandbox of the service.

The sandbox is `pixops.Sandbox`; the primitives live in their own modules
(`pixops.money`, `pixops.ids`, `pixops.wire`, `pixops.brcode`, `pixops.pixkeys`,
`pixops.documents`, `pixops.participants`) and webhook receiving in `pixops.webhooks`.
"""

__version__ = "0.1.0"

# Imported after __version__, which the engine reads.
from pixops.sandbox import Sandbox

__all__ = ["Sandbox", "__version__"]
