"""pixops: operate and analyse a PIX account, with an embedded sandbox of the service."""

__version__ = "0.1.0"
