"""Reading a file in a child process under limits, so a crashing or runaway parser fails that file alone.

The server reads every upload this way (`index.limits.isolate` does it for `kotae index` too). The child
is forked from a forkserver that has the readers imported already, so a file costs a fork and the pickled
document, not an interpreter start (bench/hostile.py measures it). The child's address space is capped
at its size when it starts plus `max_memory_mb` (RLIMIT_AS), its CPU time by RLIMIT_CPU, and its wall time
by the parent, which kills it at `max_seconds`. Whatever happens in the child comes back as a
`DocumentError` naming the file; the parent never runs the parser.
"""
from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from kotae.config import IndexSettings
from kotae.errors import DocumentError
from kotae.types import ParsedDocument

_lock = threading.Lock()
_context: Any = None
_warm = False
POLL = 0.25  # seconds between checks that the child is alive


class ReaderFailed(DocumentError):
    """The reader raised an unforeseen exception (or died) in the child; `child_traceback` says where."""

    def __init__(self, path: str, reason: str, fix: str, child_traceback: str = "") -> None:
        super().__init__(path, reason, fix)
        self.child_traceback = child_traceback


def _ctx() -> Any:
    """The forkserver context, its server preloaded with the readers (started on first use)."""
    global _context
    with _lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["kotae.isolate", "kotae.isolate_preload"])
            # Python 3.11's forkserver ignores the parent's sys.path: hand it over through the environment
            # while the server starts, so it imports this kotae (not another one installed).
            before = os.environ.get("PYTHONPATH")
            os.environ["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)
            try:
                from multiprocessing import forkserver

                forkserver.ensure_running()
            finally:
                if before is None:
                    del os.environ["PYTHONPATH"]
                else:
                    os.environ["PYTHONPATH"] = before
            _context = ctx
        return _context


def read_isolated(path: str, settings: IndexSettings, progress: Any = None) -> ParsedDocument:
    """`pipeline._read` in a child process under `settings.limits`; DocumentError when it fails, runs out of
    memory or time, or dies. "pages" progress is relayed as the child reports it."""
    limits = settings.limits
    ctx = _ctx()
    receiver, sender = ctx.Pipe(duplex=False)
    from kotae.ingest.registry import READERS

    child = ctx.Process(target=_child, args=(sender, path, settings, sorted(READERS), list(sys.path)),
                        daemon=True, name="kotae-reader")
    _start(child)
    sender.close()
    deadline = time.monotonic() + limits.max_seconds
    outcome: tuple[Any, ...] | None = None
    try:
        while outcome is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DocumentError(path, f"reading took over {limits.max_seconds:g} s and was stopped",
                                    "split the file, or raise index.limits.max_seconds")
            if receiver.poll(min(left, POLL)):
                try:
                    message = receiver.recv()
                except EOFError:
                    break  # the child died before it answered
                if message[0] == "pages":
                    if progress:
                        progress("pages", message[1])
                    continue
                outcome = message
            elif not child.is_alive() and not receiver.poll():
                break
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join(5)
    if outcome is None:
        raise _death(path, child.exitcode, limits.max_memory_mb)
    kind, *rest = outcome
    if kind == "ok":
        doc: ParsedDocument = rest[0]
        return doc
    if kind == "document_error":
        raise DocumentError(path, rest[0], rest[1])
    if kind == "memory":
        raise DocumentError(path, f"reading needed over {limits.max_memory_mb} MB of memory and was stopped",
                            "split the file, or raise index.limits.max_memory_mb")
    type_name, text, tb = rest
    raise ReaderFailed(path, f"could not be read ({type_name}{': ' + text if text else ''})",
                       "run with --debug for the traceback, and report it if the file is valid", tb)


def _death(path: str, exitcode: int | None, memory_mb: int) -> DocumentError:
    if exitcode == -signal.SIGXCPU:
        return DocumentError(path, "reading used up its CPU time and was stopped",
                             "split the file, or raise index.limits.max_seconds")
    if exitcode == -signal.SIGKILL:  # the kernel's OOM killer, or someone else
        return DocumentError(path, f"the reading process was killed (out of memory? limit {memory_mb} MB)",
                             "split the file, or raise index.limits.max_memory_mb")
    how = f"signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit status {exitcode}"
    return ReaderFailed(path, f"the reader crashed ({how})", "report it if the file is valid")


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _start(child: Any) -> None:
    """Start `child` without re-running the parent's __main__ in it: multiprocessing imports the main module
    in every forkserver child (for a server or a test run that is seconds of imports per file, and the
    reader needs none of it)."""
    from multiprocessing import spawn

    with _lock:
        original = spawn.get_preparation_data

        def without_main(name: str) -> dict[str, Any]:
            data = original(name)
            data.pop("init_main_from_name", None)
            data.pop("init_main_from_path", None)
            return data

        spawn.get_preparation_data = without_main  # type: ignore[assignment]
        try:
            child.start()
        finally:
            spawn.get_preparation_data = original  # type: ignore[assignment]


def warm_up() -> None:
    """Start the forkserver now and wait until it is ready (it takes seconds: it imports every reader and
    plug-in), so the first file does not wait for it."""
    global _warm
    if _warm:
        return
    child = _ctx().Process(target=_nothing, daemon=True, name="kotae-reader-warm-up")
    _start(child)
    child.join()
    _warm = True


def _nothing() -> None:
    pass


def _child(sender: Connection, path: str, settings: IndexSettings, kinds: list[str], parent_path: list[str]) -> None:
    """In the child: cap memory and CPU, read, send back the document or what went wrong."""
    import resource

    from kotae import plugins
    from kotae.ingest.registry import READERS
    from kotae.pipeline import _read

    if set(kinds) - set(READERS):  # a plug-in the parent loaded after the forkserver started
        sys.path[:] = parent_path
        plugins.load(refresh=True)

    limits = settings.limits
    try:
        cap = _vm_bytes() + limits.max_memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        cpu = math.ceil(limits.max_seconds * max(1, os.cpu_count() or 1)) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    except (ValueError, OSError):
        pass  # a platform without these limits: the wall-clock limit still holds
    try:
        doc = _read(path, settings, lambda event, n: sender.send(("pages", n)) if event == "pages" else None)
        sender.send(("ok", doc))
    except DocumentError as e:
        sender.send(("document_error", e.reason, e.fix))
    except MemoryError:
        sender.send(("memory",))
    except BaseException as e:  # noqa: BLE001 - everything is reported to the parent, which decides
        text = str(e).splitlines()[0][:300] if str(e) else ""
        sender.send(("error", type(e).__name__, text, "".join(traceback.format_exception(e))))
    finally:
        sender.close()
