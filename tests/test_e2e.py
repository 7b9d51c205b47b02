"""End to end with the real bundled model on the bundled samples, and a SIGKILL mid-index."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ROOT, SAMPLES
from kotae.answer import ask
from kotae.config import IndexSettings
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import open_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory, e5):
    store = open_store(str(tmp_path_factory.mktemp("samples") / "idx"))
    report = index_paths([SAMPLES], store, e5, IndexSettings())
    assert report.ok, report.failed
    yield store
    store.close()


def _rules_page(store, needle):
    text = None
    for d in store.documents():
        if d.file == "work-rules.pdf":
            for p in range(1, d.pages + 1):
                text = store.page_text(d.id, p)
                if needle in text.replace("\n", ""):
                    return p
    raise AssertionError(f"{needle} not in work-rules.pdf")


def test_paraphrased_japanese_question_finds_the_wage_article(sample_index, e5):
    answer = ask("給料はいつ支払われますか", Searcher(sample_index, e5))
    assert answer.found_in_docs
    top = answer.sources[0].hit.chunk
    assert top.file == "work-rules.pdf"
    assert top.page == _rules_page(sample_index, "翌月25日")
    assert "25日" in answer.answer and "[1]" in answer.answer


def test_english_question_on_the_handbook(sample_index, e5):
    answer = ask("How many days can I work from home?", Searcher(sample_index, e5))
    assert answer.found_in_docs
    assert answer.sources[0].hit.chunk.file == "employee-handbook.docx"


def test_sigkill_mid_index_leaves_whole_documents(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):  # ~24 chunks each: more than one embedding batch (pipeline.EMBED_BATCH chunks)
        body = "\n\n".join(f"Section {j} of report {i}. " + "Revenue grew in the northern region. " * 12
                           for j in range(48))
        (docs / f"report-{i:02}.md").write_text(f"# Report {i}\n\n{body}\n", encoding="utf-8")
    idx = tmp_path / "idx"
    cmd = [sys.executable, "-m", "kotae.cli", "--index", str(idx), "index", str(docs)]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = idx / "index.sqlite3"
    deadline = time.time() + 600  # a bound, not a timing check: the first commit comes after ~256 chunks embedded
    while time.time() < deadline:  # wait until at least one document is committed, then kill
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    if con.execute("SELECT count(*) FROM documents").fetchone()[0] >= 1:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    store = open_store(str(idx))
    docs_in = store.documents()
    assert 1 <= len(docs_in) < 12, "the kill should land mid-run"
    with sqlite3.connect(db) as con:
        for d in docs_in:
            n = con.execute("SELECT count(*) FROM chunks WHERE doc_id=?", (d.id,)).fetchone()[0]
            assert n == d.chunks > 0
        orphans = con.execute("SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)")
        assert orphans.fetchone()[0] == 0
        fts = con.execute("SELECT count(*) FROM chunk_fts").fetchone()[0]
        assert fts == con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    store.close()

    rerun = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert f"indexed {12 - len(docs_in)} file(s)" in rerun.stdout
    assert f"{len(docs_in)} unchanged" in rerun.stdout
