"""A few exceptions that say what failed, on which file, and how to fix it."""
from __future__ import annotations


class KotaeError(Exception):
    """Base class: the message is meant for the user, one line."""


class DocumentError(KotaeError):
    """One file could not be read; the rest of a batch goes on."""

    def __init__(self, path: str, reason: str, fix: str = "") -> None:
        self.path = path
        self.reason = reason
        self.fix = fix
        super().__init__(f"{path}: {reason}" + (f"; {fix}" if fix else ""))


class UnsupportedType(DocumentError):
    pass


class EncryptedDocument(DocumentError):
    pass


class IndexMismatch(KotaeError):
    """The index was built with another embedding model or schema."""


class ConfigError(KotaeError):
    pass


class NotFound(KotaeError):
    """A document, page or other named thing is not in the index; `code` names what (for the HTTP API)."""

    def __init__(self, message: str, code: str = "not_found") -> None:
        self.code = code
        super().__init__(message)


class Conflict(KotaeError):
    """The named thing exists already (a collection being created)."""


class Unauthorized(KotaeError):
    """A collection's own API key was not presented."""
