"""Plug-ins: kotae's built-in readers, embedders, stores and LLMs load exactly like third-party ones.

`load()` imports the built-in modules by name, then every entry point of the group "kotae"; each
module registers what it provides on import with the same public decorators the built-ins use
(`kotae.ingest.register`, `kotae.embed.register`, `kotae.store.register`, `kotae.answer.register`).
The registries call `load()` before they are looked up, so nothing else has to. The stores, embedders
and LLMs first call `load(readers=False)`, which imports only the built-ins that are not readers (the
readers pull in openpyxl, python-pptx, python-docx, bs4: most of a one-shot `kotae ask`'s start), and
fall back to `load()` for a name the built-ins lack.

A plug-in is any installed distribution that declares an entry point in the group "kotae", whose
value names the module to import (the entry point's name is only a label, shown in warnings):

    # pyproject.toml of the plug-in
    [project.entry-points.kotae]
    myreader = "my_pkg.reader"

    # my_pkg/reader.py
    from kotae.ingest import register
    from kotae.types import ParsedDocument

    @register("note", extensions=(".note",))
    def read_note(path: str, data: bytes) -> ParsedDocument: ...

A value `module:attr` is accepted too (the module is imported and `attr` looked up, nothing called).
A plug-in that fails to import does not break kotae: it is skipped, and a one-line warning naming
the entry point, its distribution, the error and the fix is kept (`warnings()`) and emitted once
(`warnings.warn`, category `PluginWarning`).

This module is a ground floor: it imports nothing of kotae at module level, so any module may import it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import threading
import warnings as _warnings

__all__ = ["BUILTIN_MODULES", "BUILTIN_READERS", "GROUP", "PluginWarning", "load", "warnings"]

GROUP = "kotae"
# Built-in readers in the order their types are listed ("supported types are .pdf, .docx, …").
BUILTIN_READERS = (
    "kotae.ingest.pdf",
    "kotae.ingest.docx",
    "kotae.ingest.excel",
    "kotae.ingest.powerpoint",
    "kotae.ingest.tables",
    "kotae.ingest.text",
    "kotae.ingest.html",
    "kotae.ingest.image",
)
BUILTIN_MODULES = (
    *BUILTIN_READERS,
    # e5_torch and st import torch / sentence-transformers only when such a model is built.
    "kotae.embed.e5",
    "kotae.embed.e5_onnx",
    "kotae.embed.e5_torch",
    "kotae.embed.st",
    "kotae.store.sqlite",
    "kotae.store.postgres",
    "kotae.answer.openai_llm",
    "kotae.answer.llamacpp_llm",
    "kotae.search.e5_rerank",
)


class PluginWarning(UserWarning):
    """A kotae plug-in could not be loaded (and was skipped)."""


_lock = threading.RLock()
_done = False
_core_done = False  # the built-ins but the readers
_loading = False
_warnings_list: tuple[str, ...] = ()
_emitted: set[str] = set()


def load(*, refresh: bool = False, readers: bool = True) -> None:
    """Import the built-ins, then every plug-in (entry points of the group "kotae"); once per process.

    Idempotent and thread-safe; after the first call it costs one flag check. `refresh=True` scans the
    entry points again (a distribution installed or put on sys.path since) and rebuilds `warnings()`.
    `readers=False` imports only the built-in modules that are not readers, and no plug-in (a later
    `load()` does the rest). A call made while loading (a module being loaded that looks a registry up)
    returns at once.
    """
    global _done, _core_done, _loading, _warnings_list
    if (_done or (_core_done and not readers)) and not refresh:
        return
    with _lock:
        if _loading or ((_done or (_core_done and not readers)) and not refresh):
            return
        _loading = True
        try:
            if not readers:
                for name in BUILTIN_MODULES:
                    if name not in BUILTIN_READERS:
                        importlib.import_module(name)
                _core_done = True
                return
            for name in BUILTIN_MODULES:
                importlib.import_module(name)
            if refresh:
                importlib.invalidate_caches()
            _warnings_list = tuple(_load_entry_points())
            _done = _core_done = True
        finally:
            _loading = False
    for message in _warnings_list:
        if message not in _emitted:
            _emitted.add(message)
            _warnings.warn(message, PluginWarning, stacklevel=2)


def warnings() -> tuple[str, ...]:
    """One line per plug-in that failed to load: entry point, distribution, error, fix."""
    load()
    return _warnings_list


def _load_entry_points() -> list[str]:
    problems = []
    for ep in importlib.metadata.entry_points(group=GROUP):
        try:
            ep.load()
        except Exception as exc:  # noqa: BLE001  (a broken plug-in must not break kotae)
            problems.append(_problem(ep, exc))
    return problems


def _problem(ep: importlib.metadata.EntryPoint, exc: Exception) -> str:
    dist = ep.dist
    dist_name = dist.name if dist is not None else None
    where = f"{dist_name} {dist.version}" if dist is not None else "an unknown distribution"
    error = " ".join(f"{type(exc).__name__}: {exc}".split())
    fix = f"pip uninstall {dist_name} or fix it" if dist_name else f"fix or remove the module {ep.value}"
    return f"kotae plug-in {ep.name!r} ({ep.value}, from {where}) failed to load ({error}); {fix}"
