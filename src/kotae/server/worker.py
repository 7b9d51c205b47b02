"""Background indexing: one worker thread, a queue, and a status per document.

Uploads are indexed one at a time with `Kotae.index`, what `kotae index` calls (so an upload is chunked like
the rest of its index), while queries go on answering from what is already indexed (each document is
written in one transaction).
"""
from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
from dataclasses import dataclass, field

from kotae.errors import NotFound
from kotae.facade import Kotae

log = logging.getLogger("kotae.server")


@dataclass
class Job:
    """One upload on its way into the index."""

    id: str
    path: str  # the saved upload
    file: str  # the name shown and cited
    sha256: str
    status: str = "queued"
    message: str = ""  # why it failed, or the reader's warnings
    chunks: int | None = None
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event, repr=False)


class IndexWorker:
    """A single thread that indexes queued uploads; `jobs()` tells the status of each."""

    def __init__(self, kotae: Kotae) -> None:
        self.kotae = kotae
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kotae-indexer", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the document being indexed, drop the rest of the queue, and end the thread."""
        if self._thread is None:
            return
        with self._lock:
            for job in self._jobs.values():
                if job.status == "queued":
                    job.cancelled = True
        self._queue.put(None)
        self._thread.join(timeout)
        self._thread = None

    def submit(self, path: str, file: str, sha256: str) -> Job:
        """Queue a saved file for indexing under the display name `file`."""
        job = Job(Kotae.id_for(path), os.path.abspath(path), file, sha256)
        with self._lock:
            self._jobs[job.id] = job
        self._queue.put(job)
        return job

    def job(self, doc_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(doc_id)

    def jobs(self) -> list[Job]:
        with self._lock:
            return list(self._jobs.values())

    def pending(self, sha256: str) -> Job | None:
        """A queued or running job for the same content, if any."""
        with self._lock:
            return next((j for j in self._jobs.values()
                         if j.sha256 == sha256 and j.status in ("queued", "indexing")), None)

    def forget(self, doc_id: str) -> Job | None:
        """Drop a job's status; a queued job will not run, a running one is removed again when it ends."""
        with self._lock:
            job = self._jobs.pop(doc_id, None)
            if job is not None:
                job.cancelled = True
            return job

    def wait(self, doc_id: str, timeout: float | None = None) -> Job | None:
        job = self.job(doc_id)
        if job is not None:
            job.done.wait(timeout)
        return job

    def busy(self) -> bool:
        with self._lock:
            return any(j.status in ("queued", "indexing") for j in self._jobs.values())

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            if job.cancelled:
                job.done.set()
                continue
            job.status = "indexing"
            try:
                self._index(job)
            finally:
                job.done.set()

    def _index(self, job: Job) -> None:
        try:
            # Uploads are untrusted: each is read in a child process under index.limits (kotae.isolate).
            # a large index's keyword file is rebuilt once the queue is empty, not after every upload
            report = self.kotae.index([job.path], names={job.path: job.file}, isolate=True,
                                      keyword_file=self._queue.empty())
        except Exception as e:
            log.exception("indexing %s failed", job.path)
            self._fail(job, f"{job.file}: could not be indexed ({type(e).__name__}: {e})")
            return
        if report.failed:  # the message names the saved path; the user knows the file by its name
            self._fail(job, report.failed[0][1].replace(job.path, job.file, 1))
            return
        if job.cancelled:  # deleted while it was being indexed
            with contextlib.suppress(NotFound):
                self.kotae.remove(job.id)
            return
        info = report.indexed[0] if report.indexed else self.kotae.document(job.path)  # unchanged: as it was
        job.chunks = info.chunks if info else None
        job.message = "; ".join(info.warnings) if info else ""
        job.status = "indexed"

    def _fail(self, job: Job, message: str) -> None:
        job.status, job.message = "failed", message
        try:  # a file that cannot be indexed is not kept; its status says why
            os.remove(job.path)
        except OSError:
            pass
