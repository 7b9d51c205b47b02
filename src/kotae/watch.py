"""Keep an index in step with folders: `kotae watch DIR…` and `kotae serve --watch DIR`.

At the start, what is missing or changed is indexed and documents whose files are gone are removed; then
file events (watchfiles, grouped over `debounce_ms` so a burst of saves is one batch) are applied: a new or
changed supported file is indexed, a deleted one (or a deleted folder's files) removed, a rename is both.
A file that cannot be read is reported and skipped, and the watch goes on; unsupported files are ignored
with a log line (hidden files silently). `plan` is the pure core; `Watcher` is the I/O around it.
"""
from __future__ import annotations

import itertools
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kotae.errors import KotaeError, NotFound
from kotae.facade import Kotae, is_supported

log = logging.getLogger("kotae.watch")
DEBOUNCE_MS = 1600  # watchfiles' default: a burst of writes within it comes as one batch


@dataclass
class Plan:
    """What one batch of file events asks for."""

    index: list[str] = field(default_factory=list)  # files to (re)index
    remove: list[str] = field(default_factory=list)  # paths whose documents go (a file, or a folder's files)
    ignored: list[str] = field(default_factory=list)  # files kotae does not read


def plan(paths: Iterable[str], exists: Callable[[str], bool], is_dir: Callable[[str], bool],
         roots: Sequence[str] = (), files_in: Callable[[str], Iterable[str]] | None = None) -> Plan:
    """Decide from the paths a batch touched and their state now (not the event kinds, which a burst can
    reorder): an existing supported file is indexed, a path that is gone is removed, an unsupported file is
    ignored (and said so); hidden files and folders that exist are left alone. A folder that appears brings
    the files already in it (`files_in`): they can be written before the folder itself is watched."""
    out = Plan()
    touched = set(paths)
    if files_in is not None:
        touched |= {f for p in list(touched) if exists(p) and is_dir(p) and not hidden(p, roots) for f in files_in(p)}
    for path in sorted(touched):
        if not exists(path):
            out.remove.append(path)
        elif is_dir(path) or hidden(path, roots):  # folders: their files' events; swap files, .git: unsaid
            continue
        elif not is_supported(path):
            out.ignored.append(path)
        else:
            out.index.append(path)
    return out


def _files_under(folder: str) -> list[str]:
    return [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]


def hidden(path: str, roots: Sequence[str] = ()) -> bool:
    """A dot file, or a file in a dot folder under its root (editor swap files, .git): a folder walk skips them."""
    root = next((r for r in roots if path.startswith(r.rstrip(os.sep) + os.sep)), os.path.dirname(path))
    return any(part.startswith(".") for part in os.path.relpath(path, root).split(os.sep) if part != "..")


class Watcher:
    """Watches `dirs` and applies their changes to `kotae`, on a thread of its own (`start`/`stop`) or on
    the caller's (`run`)."""

    def __init__(self, kotae: Kotae, dirs: Sequence[str], *, debounce_ms: int = DEBOUNCE_MS) -> None:
        missing = [d for d in dirs if not os.path.isdir(d)]
        if missing:
            raise KotaeError(f"cannot watch {', '.join(missing)}: not a folder; name existing folders")
        self.kotae = kotae
        self.dirs = [os.path.abspath(d) for d in dirs]
        self.debounce_ms = debounce_ms
        self.batches = 0  # batches applied, the initial scan included
        self.ready = threading.Event()  # the first scan is done and events are being watched
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan(self) -> Plan:
        """Index what is new or changed under the folders and remove documents whose files are gone."""
        gone = [d.path for d in self.kotae.documents() if self._owns(d.path) and not os.path.exists(d.path)]
        todo = Plan(index=[p for d in self.dirs for p in _walk(d)], remove=gone)
        self.apply(todo)
        return todo

    def apply(self, todo: Plan) -> None:
        """Carry out a plan; each file succeeds or fails alone."""
        for path in todo.ignored:
            log.info("ignored %s: not a type kotae reads", path)
        for path in todo.remove:
            self._remove(path)
        if todo.index:
            try:
                report = self.kotae.index(todo.index, names={p: self._name(p) for p in todo.index})
            except KotaeError as e:  # e.g. the index refused the batch; the next event tries again
                log.error("indexing %d file(s) failed: %s", len(todo.index), e)
            else:
                for d in report.indexed:
                    log.info("indexed %s (%d chunks)", d.file, d.chunks)
                for _, message in report.failed:
                    log.error("skipped: %s", message)
                for w in report.warnings:
                    log.warning("%s", w)
        self.batches += 1

    def run(self) -> None:
        """Scan, then apply file events until `stop` is called; `ready` is set once both are under way."""
        import watchfiles

        events = watchfiles.watch(*self.dirs, debounce=self.debounce_ms, stop_event=self._stop, rust_timeout=500,
                                  yield_on_timeout=True, raise_interrupt=False)
        # The generator watches from its first step (it yields an empty batch on a quiet timeout), so a file
        # saved while the scan runs is seen afterwards, not lost.
        early = next(events, set())
        self.scan()
        log.info("watching %s", ", ".join(self.dirs))
        self.ready.set()
        for changes in itertools.chain([early], events):
            if not changes:
                continue
            try:
                self.apply(plan([p for _, p in changes], os.path.exists, os.path.isdir, self.dirs, _files_under))
            except Exception:  # the watch must outlive any one batch
                log.exception("applying %d file event(s) failed", len(changes))

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="kotae-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _remove(self, path: str) -> None:
        for d in self.kotae.documents():
            if d.path == path or d.path.startswith(path.rstrip(os.sep) + os.sep):
                try:
                    self.kotae.remove(d.path)
                    log.info("removed %s", d.file)
                except NotFound:  # removed meanwhile
                    pass

    def _owns(self, path: str) -> bool:
        return any(path.startswith(d + os.sep) for d in self.dirs)

    def _name(self, path: str) -> str:
        """The name a file is cited by: its path under the watched folder, as `kotae index DIR` names it."""
        base = next((d for d in self.dirs if path.startswith(d + os.sep)), os.path.dirname(path))
        return os.path.relpath(path, base)


def _walk(folder: str) -> list[str]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out += [os.path.join(root, f) for f in sorted(files) if not f.startswith(".")
                and is_supported(os.path.join(root, f))]
    return out
