"""The one registry of readers: kind → function(path, data) -> ParsedDocument, and the extensions each reads.

It is the single source of the supported types: folder walks (`is_supported`), upload sniffing and the
"supported types are …" message all ask `supported_extensions()`. Built-in readers register with
`@register("pdf")` exactly as a plug-in reader would (see `kotae.plugins`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from kotae.types import ParsedDocument

__all__ = ["READERS", "Reader", "extensions", "is_builtin", "plugin_kind", "register", "supported_extensions"]

Reader = Callable[[str, bytes], ParsedDocument]

READERS: dict[str, Reader] = {}
_EXTENSIONS: dict[str, tuple[str, ...]] = {}  # kind → its extensions (lower case, with the dot)
_BUILTIN: dict[str, tuple[int, int]] = {}  # built-in kind → (its module's place, registration order)
_order = itertools.count()


def register(kind: str, extensions: Iterable[str] | None = None) -> Callable[[Reader], Reader]:
    """Register `fn(path, data) -> ParsedDocument` as the reader for `kind` (the last one wins), for files
    named with one of `extensions` (default: `.{kind}`; case does not matter, the dot is optional).

    A kind of kotae's own (pdf, docx, csv, text, markdown, html, image) is decided from the file's content;
    a plug-in's kind is chosen by extension.
    """
    exts = tuple(_dotted(e) for e in (extensions if extensions is not None else (kind,)))

    def add(fn: Reader) -> Reader:
        from kotae import plugins

        READERS[kind] = fn
        _EXTENSIONS[kind] = exts
        module = getattr(fn, "__module__", None)
        if module in plugins.BUILTIN_READERS and kind not in _BUILTIN:
            _BUILTIN[kind] = (plugins.BUILTIN_READERS.index(module), next(_order))
        return fn

    return add


def _dotted(ext: str) -> str:
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else f".{ext}"


def _load() -> None:
    from kotae import plugins

    plugins.load()


def _kinds() -> list[str]:
    """Registered kinds: built-ins first (in their documented order), then plug-ins as registered."""
    builtin = sorted((k for k in READERS if k in _BUILTIN), key=_BUILTIN.__getitem__)
    return builtin + [k for k in READERS if k not in _BUILTIN]


def extensions(kind: str) -> tuple[str, ...]:
    """The extensions the reader for `kind` reads (empty when no such reader)."""
    _load()
    return _EXTENSIONS.get(kind, (f".{kind}",)) if kind in READERS else ()


def supported_extensions() -> tuple[str, ...]:
    """Every extension some reader reads, built-ins first: what a folder walk indexes and the error names."""
    _load()
    out: dict[str, None] = {}
    for kind in _kinds():
        out.update(dict.fromkeys(_EXTENSIONS.get(kind, (f".{kind}",))))
    return tuple(out)


def is_builtin(kind: str) -> bool:
    """True for kotae's own kinds (decided from content), even when a plug-in has replaced their reader."""
    _load()
    return kind in _BUILTIN


def plugin_kind(ext: str) -> str | None:
    """The plug-in kind (not a built-in one) registered for extension `ext` (".note"), if any; the latest wins."""
    _load()
    ext = _dotted(ext) if ext else ""
    found = None
    for kind in READERS:
        if kind not in _BUILTIN and ext in _EXTENSIONS.get(kind, (f".{kind}",)):
            found = kind
    return found
