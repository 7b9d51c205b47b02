"""Folder watch: the pure plan of a batch of events, then a real watcher over real file operations in a temp dir
(each state waited for up to a bound, never timed)."""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.cli import build_parser
from kotae.store import open_store
from kotae.watch import Plan, Watcher, hidden, plan


def wait_for(check: Callable[[], object], timeout: float = 60.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError("the index did not reach the state in time")


def test_plan_decides_from_what_is_there_now():
    there = {"/w/a.md", "/w/sub", "/w/notes.xyz", "/w/.a.md.swp", "/w/.git/x.md"}
    p = plan(["/w/a.md", "/w/gone.pdf", "/w/sub", "/w/notes.xyz", "/w/a.md", "/w/.a.md.swp", "/w/.git/x.md"],
             exists=there.__contains__, is_dir=lambda p: p == "/w/sub", roots=["/w"])
    assert p == Plan(index=["/w/a.md"], remove=["/w/gone.pdf"], ignored=["/w/notes.xyz"])
    # a folder that appears brings the files written into it before it was watched
    there |= {"/w/sub/b.md"}
    p = plan(["/w/sub"], exists=there.__contains__, is_dir=lambda p: p == "/w/sub", roots=["/w"],
             files_in=lambda d: ["/w/sub/b.md"])
    assert p == Plan(index=["/w/sub/b.md"])


def test_hidden_looks_below_the_watched_folder_only():
    assert not hidden("/home/u/.local/docs/a.md", ["/home/u/.local/docs"])
    assert hidden("/home/u/.local/docs/.cache/a.md", ["/home/u/.local/docs"])


def test_watching_a_missing_folder_says_so(tmp_path):
    with Kotae(open_store(str(tmp_path / "index")), FakeEmbedder()) as k, \
            pytest.raises(Exception, match="cannot watch .*nope: not a folder"):
        Watcher(k, [str(tmp_path / "nope")])


def test_serve_and_watch_take_folders():
    assert build_parser().parse_args(["serve", "--watch", "a", "--watch", "b"]).watch == ["a", "b"]
    assert build_parser().parse_args(["watch", "a", "b"]).dirs == ["a", "b"]


@pytest.fixture
def watched(tmp_path) -> Iterator[tuple[Kotae, Path]]:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "salary.md").write_text("# Salary\n\nSalaries are paid on the 25th of each month.\n", encoding="utf-8")
    (folder / "sub" / "leave.md").write_text("# Leave\n\nTwenty days of paid leave per year.\n", encoding="utf-8")
    (folder / "old.md").write_text("# Old\n\nThe old canteen closes at noon.\n", encoding="utf-8")
    k = Kotae(open_store(str(tmp_path / "index")), FakeEmbedder())
    k.index([str(folder)])
    (folder / "old.md").unlink()  # deleted, and another file added, while nobody watched
    (folder / "new.md").write_text("# New\n\nThe new canteen opens at eight.\n", encoding="utf-8")
    watcher = Watcher(k, [str(folder)], debounce_ms=300)
    watcher.start()
    try:
        assert watcher.ready.wait(60), "the watcher did not start"
        yield k, folder
    finally:
        watcher.stop()
        k.close()


def files(k: Kotae) -> dict[str, str]:
    return {d.file: d.sha256 for d in k.documents()}


def test_the_watch_follows_creates_changes_deletes_and_renames(watched, caplog):
    k, folder = watched
    caplog.set_level(logging.INFO, logger="kotae.watch")
    assert set(files(k)) == {"salary.md", "sub/leave.md", "new.md"}  # the scan caught up with the folder

    (folder / "bonus.md").write_text("# Bonus\n\nA bonus is paid in December.\n", encoding="utf-8")
    wait_for(lambda: "bonus.md" in files(k))
    assert "December" in k.ask("When is the bonus paid?").answer

    before = files(k)["salary.md"]
    (folder / "salary.md").write_text("# Salary\n\nSalaries are paid on the last Friday of each month.\n",
                                      encoding="utf-8")
    wait_for(lambda: files(k).get("salary.md") not in (None, before))
    assert "last Friday" in k.ask("When are salaries paid?").answer

    (folder / "bonus.md").unlink()
    wait_for(lambda: "bonus.md" not in files(k))

    os.rename(folder / "salary.md", folder / "pay.md")
    wait_for(lambda: "pay.md" in files(k) and "salary.md" not in files(k))

    (folder / "sub" / "more").mkdir()
    (folder / "sub" / "more" / "travel.md").write_text("# Travel\n\nTrains are booked by the desk.\n", encoding="utf-8")
    wait_for(lambda: os.path.join("sub", "more", "travel.md") in files(k))  # named as `kotae index DIR` names it


def test_a_bad_or_unsupported_file_is_skipped_and_the_watch_goes_on(watched, caplog):
    k, folder = watched
    caplog.set_level(logging.INFO, logger="kotae.watch")
    (folder / "notes.xyz").write_text("not a type kotae reads", encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    wait_for(lambda: any("broken.pdf" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records))
    (folder / "after.md").write_text("# After\n\nThe watch still runs.\n", encoding="utf-8")
    wait_for(lambda: "after.md" in files(k))
    assert "broken.pdf" not in files(k) and "notes.xyz" not in files(k)
    assert any(r.getMessage().startswith("ignored ") and r.getMessage().endswith("notes.xyz: not a type kotae reads")
               for r in caplog.records)


def test_a_deleted_folder_takes_its_documents_with_it(watched):
    k, folder = watched
    for f in (folder / "sub").iterdir():
        f.unlink()
    (folder / "sub").rmdir()
    wait_for(lambda: set(files(k)) == {"salary.md", "new.md"})


def test_kotae_serve_watch_indexes_what_lands_in_the_folder(tmp_path):
    """`kotae serve --watch DIR` for real: a subprocess (FakeEmbedder as a plug-in) and the HTTP API."""
    import socket
    import subprocess
    import sys

    import httpx

    from fake_plugin import fake_embedder_env

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "salary.md").write_text("# Salary\n\nSalaries are paid on the 25th of each month.\n", encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "kotae", "--index", str(tmp_path / "index"), "--model", "fake", "serve",
           "--port", str(port), "--watch", str(folder)]
    proc = subprocess.Popen(cmd, env=fake_embedder_env(tmp_path / "site"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        def names() -> set[str] | None:
            try:
                return {d["file"] for d in httpx.get(f"http://127.0.0.1:{port}/documents").json()}
            except httpx.TransportError:
                assert proc.poll() is None, proc.communicate()[1]
                return None

        wait_for(lambda: names() == {"salary.md"})  # the initial scan
        (folder / "leave.md").write_text("# Leave\n\nTwenty days of paid leave per year.\n", encoding="utf-8")
        wait_for(lambda: names() == {"salary.md", "leave.md"})
        (folder / "salary.md").unlink()
        wait_for(lambda: names() == {"leave.md"})
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert "kotae watch: indexed leave.md" in err and "kotae watch: removed salary.md" in err
