"""kill -9 of a `kotae index` process while it writes: the index stays consistent, no half document."""
from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from kotae.store import open_store
from kotae.store.sqlite import DB_NAME, SYNCHRONOUS

TESTS = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(TESTS), "src")
FILES = 20

# `kotae index` with the FakeEmbedder; with KILL_AT=n it SIGKILLs itself inside the n-th document's
# transaction, every row written and the COMMIT not yet run.
RUNNER = """
import os, signal, sys
sys.path[:0] = [{tests!r}, {src!r}]
import conftest  # registers the fake embedder
from kotae.store.sqlite import SQLiteStore
kill_at = int(os.environ.get("KILL_AT", "0"))
calls = [0]
bump = SQLiteStore._bump
def dying_bump(db):
    bump(db)
    calls[0] += 1
    if calls[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
SQLiteStore._bump = staticmethod(dying_bump)
from kotae.cli import main
sys.exit(main(["--index", sys.argv[1], "--model", "fake", "index", sys.argv[2]]))
"""


def make_docs(folder) -> None:
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(7)
    words = ["leave", "salary", "travel", "meal", "allowance", "contract", "office", "holiday", "train", "hotel", "invoice"]
    for i in range(FILES):
        body = "\n\n".join(" ".join(rng.choice(words) for _ in range(60)) + "." for _ in range(8))
        with open(os.path.join(folder, f"doc{i:02d}.md"), "w") as f:
            f.write(f"# Document {i}\n\n{body}\n")


def run(index: str, docs: str, kill_at: int = 0, **kw) -> subprocess.Popen:
    env = {**os.environ, "KILL_AT": str(kill_at), "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-c", RUNNER.format(tests=TESTS, src=SRC), index, docs], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def assert_consistent(index: str) -> int:
    """Every stored document is whole (its pages, chunks, keyword rows, vectors); returns how many there are."""
    db = sqlite3.connect(os.path.join(index, DB_NAME))
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    docs = db.execute("SELECT id, pages, chunks FROM documents").fetchall()
    for doc_id, pages, chunks in docs:
        assert db.execute("SELECT COUNT(*) FROM pages WHERE doc_id=?", (doc_id,)).fetchone() == (pages,)
        assert db.execute("SELECT COUNT(*) FROM chunks WHERE doc_id=?", (doc_id,)).fetchone() == (chunks,)
        assert db.execute("SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash "
                          "WHERE c.doc_id=?", (doc_id,)).fetchone() == (chunks,)
    orphans = db.execute("SELECT COUNT(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)").fetchone()
    assert orphans == (0,)
    fts = db.execute("SELECT COUNT(*) FROM chunk_fts").fetchone()[0]
    assert fts == db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    db.close()
    return len(docs)


def test_document_commits_are_synchronous_full(tmp_path):
    store = open_store(str(tmp_path / "index"))
    assert SYNCHRONOUS == "FULL"
    assert store._db.execute("PRAGMA synchronous").fetchone() == (2,)  # 2 = FULL
    store.close()


@pytest.mark.parametrize("kill_at", [1, 12])
def test_kill_inside_a_documents_transaction_leaves_no_half_document(tmp_path, kill_at):
    index, docs = str(tmp_path / "index"), str(tmp_path / "docs")
    make_docs(docs)
    p = run(index, docs, kill_at)
    p.communicate(timeout=300)
    assert p.returncode == -signal.SIGKILL
    # the documents before the killed one are whole; the killed one is not there at all
    assert assert_consistent(index) == kill_at - 1
    p = run(index, docs)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err.decode()
    assert f"indexed {FILES - kill_at + 1} file(s)" in out.decode()
    assert assert_consistent(index) == FILES


@pytest.mark.parametrize("seed", [1])
def test_kill_at_a_random_moment_then_resume(tmp_path, seed):
    index, docs = str(tmp_path / "index"), str(tmp_path / "docs")
    make_docs(docs)
    p = run(index, docs)
    deadline = time.monotonic() + 120
    while not os.path.exists(os.path.join(index, DB_NAME)) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(random.Random(seed).uniform(0.0, 1.5))
    p.kill()
    p.communicate(timeout=60)
    done = assert_consistent(index) if os.path.exists(os.path.join(index, DB_NAME)) else 0
    assert 0 <= done <= FILES
    p = run(index, docs)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err.decode()
    assert assert_consistent(index) == FILES
