"""The one registry of readers: kind → function(path, data) -> ParsedDocument.

Built-in readers register with `@register("pdf")` exactly as a third-party reader would.
"""

from __future__ import annotations

from collections.abc import Callable

from kotae.types import ParsedDocument

Reader = Callable[[str, bytes], ParsedDocument]

READERS: dict[str, Reader] = {}


def register(kind: str) -> Callable[[Reader], Reader]:
    """Register `fn(path, data) -> ParsedDocument` as the reader for `kind` (the last one wins)."""

    def add(fn: Reader) -> Reader:
        READERS[kind] = fn
        return fn

    return add
