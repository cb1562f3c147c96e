"""Encryption of catalog secrets at rest (Fernet / MultiFernet), shared by the API and the Spark driver.

A stored configuration keeps every secret value as ``{"$secret": "<fernet token>"}``. `open_config()`
turns such markers back into plain values; it needs no knowledge of the catalog type, so the Spark
driver can decrypt a row without importing Django or the catalog types. Keys come from the
environment (``LAKEPORT_SECRET_KEYS``, comma-separated, newest first), never from the database.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from lakeport_kernel.redaction import register_secret

SECRET_MARKER = "$secret"
KEYS_ENV = "LAKEPORT_SECRET_KEYS"


class SecretKeyError(RuntimeError):
    """No usable key, or a value that none of the keys can decrypt."""


class SecretBox:
    """Encrypt and decrypt secret strings with the first key; decrypt with any key (rotation)."""

    def __init__(self, keys: Iterable[str]) -> None:
        keys = [k.strip() for k in keys if k and k.strip()]
        if not keys:
            raise SecretKeyError(f"No encryption key configured: set {KEYS_ENV} (Fernet keys, newest first).")
        try:
            self._fernet = MultiFernet([Fernet(k.encode()) for k in keys])
        except (ValueError, TypeError) as exc:
            raise SecretKeyError(f"{KEYS_ENV} holds a key that is not a valid Fernet key.") from exc

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> SecretBox:
        """Build from ``LAKEPORT_SECRET_KEYS`` in `environ` (default: the process environment)."""
        return cls((environ if environ is not None else os.environ).get(KEYS_ENV, "").split(","))

    def encrypt(self, plain: str) -> str:
        """Encrypt one value with the newest key."""
        return self._fernet.encrypt(plain.encode()).decode()

    def decrypt(self, token: str) -> str:
        """Decrypt one value with whichever key made it; the plain value is registered for redaction."""
        try:
            plain = self._fernet.decrypt(token.encode()).decode()
        except InvalidToken as exc:
            raise SecretKeyError("A stored secret cannot be decrypted with the configured keys.") from exc
        register_secret(plain)
        return plain

    def rotate(self, token: str) -> str:
        """Re-encrypt a value under the newest key."""
        return self._fernet.rotate(token.encode()).decode()

    # -- whole configurations ------------------------------------------------------------------------
    def seal(self, value: str) -> dict[str, str]:
        """The stored form of one secret value."""
        return {SECRET_MARKER: self.encrypt(value)}

    def open_config(self, config: Any) -> Any:
        """Return a copy of `config` with every ``{"$secret": …}`` replaced by its plain value."""
        if is_sealed(config):
            return self.decrypt(config[SECRET_MARKER])
        if isinstance(config, dict):
            return {k: self.open_config(v) for k, v in config.items()}
        if isinstance(config, list):
            return [self.open_config(v) for v in config]
        return config

    def rotate_config(self, config: Any) -> Any:
        """Return a copy of `config` with every sealed value re-encrypted under the newest key."""
        if is_sealed(config):
            return {SECRET_MARKER: self.rotate(config[SECRET_MARKER])}
        if isinstance(config, dict):
            return {k: self.rotate_config(v) for k, v in config.items()}
        if isinstance(config, list):
            return [self.rotate_config(v) for v in config]
        return config


def is_sealed(value: Any) -> bool:
    """True for the stored form of a secret."""
    return isinstance(value, dict) and set(value) == {SECRET_MARKER} and isinstance(value[SECRET_MARKER], str)
