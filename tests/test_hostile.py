"""Hostile and unusual files (tests/hostile_cases.py, ≥ 60 generated with fixed seeds), each beside a good file.

For every case: the file fails alone with its name in the message, or is indexed when it is valid; the good
file beside it is indexed; nothing of a failed file is stored. Then all of them in one batch, each read in
a child process (what the server does with uploads).
"""
from __future__ import annotations

import os

import pytest

from conftest import FakeEmbedder
from hostile_cases import GOOD, Case, cases, note
from kotae.config import IndexSettings, LimitSettings
from kotae.isolate import read_isolated
from kotae.names import shown, storable
from kotae.pipeline import _read, doc_id_for, index_paths
from kotae.store.sqlite import SQLiteStore

CASES = cases()
ISOLATED = ("flip-pdf", "flip-docx", "flip-html", "truncated-", "bomb-", "pdf-", "docx-", "symlink-", "fifo",
            "deep-html", "csv-wide", "xxe")  # the parsers' cases (images take OCR time; they run in process above)
GOOD_TEXT = "The good file beside it says that the canteen opens at eight in the morning."


def test_there_are_at_least_sixty_cases():
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)


def reader_for(case: Case, path: str):
    if case.during is None:
        return None

    def read(p, settings, progress):
        if p == os.path.abspath(path):
            case.during(p)
        return _read(p, settings, progress)
    return read


def outcome(report, store: SQLiteStore, path: str) -> str:
    """ "index" or "fail" for `path`, after checking what the store holds agrees with the report."""
    key = storable(os.path.abspath(path))
    indexed = {d.path for d in report.indexed}
    failed = dict(report.failed)
    stored = store.document(key)
    chunks = store._db.execute("SELECT COUNT(*) FROM chunks WHERE doc_id=?", (doc_id_for(path),)).fetchone()[0]
    if key in indexed:
        assert path not in failed
        assert stored is not None and stored.chunks == chunks > 0
        assert shown(stored.file).isprintable()  # listings can show it on one line
        return "index"
    assert path in failed, (report.failed, report.skipped)
    assert os.path.basename(path) in failed[path]  # the message names the file
    assert "\n" not in failed[path] or "\n" in path  # one line (unless the name itself has a newline)
    assert stored is None and chunks == 0  # nothing of it is stored
    return "fail"


def check_store(store: SQLiteStore) -> None:
    db = store._db
    assert db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == sum(d.chunks for d in store.documents())
    assert db.execute("SELECT COUNT(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)").fetchone() == (0,)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_file_fails_alone_or_is_indexed(tmp_path, case):
    folder = tmp_path / "in"
    folder.mkdir()
    path = case.make(str(folder))
    good = str(folder / GOOD)
    with open(good, "wb") as f:
        f.write(note(GOOD_TEXT))
    store = SQLiteStore(str(tmp_path / "index"))
    report = index_paths([path, good], store, FakeEmbedder(), IndexSettings(limits=case.limits),
                         read=reader_for(case, path))
    assert [d.file for d in report.indexed if d.path == os.path.abspath(good)] == [GOOD]
    got = outcome(report, store, path)
    if case.expect != "either":
        assert got == case.expect, dict(report.failed).get(path)
    check_store(store)
    texts = [t for (t,) in store._db.execute("SELECT text FROM pages")]
    assert not any("root:x:0:0" in t for t in texts)  # no external entity was ever read
    assert sum(map(len, texts)) < 2_000_000  # no entity expansion blew up the text
    store.close()


def test_all_cases_in_one_isolated_batch(tmp_path):
    """Each file read in a child process: the same verdicts where they are certain, the batch goes on."""
    batch = [c for c in CASES if c.during is None and c.limits == LimitSettings() and c.id.startswith(ISOLATED)]
    paths = {}
    for c in batch:
        folder = tmp_path / "in" / c.id
        folder.mkdir(parents=True)
        paths[c.id] = c.make(str(folder))
    good = str(tmp_path / "in" / GOOD)
    with open(good, "wb") as f:
        f.write(note(GOOD_TEXT))
    store = SQLiteStore(str(tmp_path / "index"))
    report = index_paths([*paths.values(), good], store, FakeEmbedder(), IndexSettings(), read=read_isolated)
    assert os.path.abspath(good) in {d.path for d in report.indexed}
    for c in batch:
        got = outcome(report, store, paths[c.id])
        if c.expect != "either":
            assert got == c.expect, (c.id, dict(report.failed).get(paths[c.id]))
    check_store(store)
    store.close()
