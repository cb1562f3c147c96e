"""Token hashing, kept free of DRF imports so the authentication class loads without cycles."""

from __future__ import annotations

import hashlib

TOKEN_PREFIX = "lpt_"


def token_digest(raw: str) -> str:
    """SHA-256 of a raw token; tokens carry 256 bits of randomness, so a fast hash is enough."""
    return hashlib.sha256(raw.encode()).hexdigest()
