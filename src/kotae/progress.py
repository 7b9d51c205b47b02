"""The indexing progress bar: files, pages, chunks, chunks/s and ETA (rich, on stderr)."""
from __future__ import annotations

import time
from typing import Self

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn


class IndexProgress:
    def __init__(self, files: int) -> None:
        self.counts = {"file": 0, "pages": 0, "chunks": 0, "embedded": 0}
        self._start = time.perf_counter()
        self._bar = Progress(
            TextColumn("[bold]indexing"), BarColumn(),
            TextColumn("{task.completed}/{task.total} files"),
            TextColumn("{task.fields[pages]} pages · {task.fields[chunks]} chunks · {task.fields[rate]} chunks/s"),
            TimeRemainingColumn(), console=Console(stderr=True), transient=False,
        )
        self._task = self._bar.add_task("index", total=files, pages=0, chunks=0, rate="0.0")

    def update(self, event: str, n: int) -> None:
        self.counts[event] = self.counts.get(event, 0) + n
        rate = self.counts["embedded"] / max(time.perf_counter() - self._start, 1e-9)
        self._bar.update(self._task, completed=self.counts["file"], pages=self.counts["pages"],
                         chunks=self.counts["chunks"], rate=f"{rate:.1f}")

    def __enter__(self) -> Self:
        self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()
