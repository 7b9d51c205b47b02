"""Keyword search: the analyser (Japanese and English) and an oracle test of FTS5 BM25 against bm25s."""
import numpy as np
import pytest

from kotae.search.analyze import analyze
from kotae.store import open_store
from kotae.types import Chunk, DocumentInfo

CORPUS = [
    "賃金は、毎月末日に締め切り、翌月25日に支払う。",
    "賞与は、原則として年2回、6月と12月に支給する。",
    "従業員が退職するときは、退職日の30日前までに退職届を提出しなければならない。",
    "時間外労働に対しては、割増賃金を支払う。割増率は25%とする。",
    "年次有給休暇は、入社後6か月継続勤務した者に10日を与える。",
    "Employees may work remotely up to three days per week with approval.",
    "Expense claims must be submitted within 30 days through the finance portal.",
    "Laptops are replaced every four years; lost laptops must be reported within 24 hours.",
    "The annual learning budget is 150,000 yen per employee.",
    "Overtime work requires prior approval from the manager in the attendance system.",
    "CET1 ratio and capital requirements are reported quarterly.",
    "社員食堂は11時30分から14時まで営業しています。",
]
QUERIES = ["給料はいつ支払われますか", "退職届はいつまでに出す", "remote working days", "lost laptop report",
           "割増賃金の率", "learning budget per employee", "CET1", "overtime approval manager", "賞与の支給月"]


def test_japanese_normalised_forms_match():
    assert "支払う" in analyze("支払われます") and "支払う" in analyze("翌月25日に支払う")
    assert analyze("ＣＥＴ１比率") == analyze("CET1比率")  # width-insensitive


def test_english_stemmed_without_stop_words():
    assert analyze("The employees are working remotely") == ["employe", "work", "remot"]


def test_mixed_text_keeps_english_words_english():
    toks = analyze("Working hours は9時から")
    assert "work" in toks and "hour" in toks


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "idx"))
    s.bind_model("m@1/2")
    info = DocumentInfo("d", "/d", "d.txt", "text", "h", 1, len(CORPUS), "mixed", "2026-01-01")
    chunks = [Chunk(f"c{i}", "d", "d.txt", 1, (), t, 0, len(t), "mixed", i) for i, t in enumerate(CORPUS)]
    s.write_document(info, ["x"], chunks, [f"h{i}" for i in range(len(CORPUS))],
                     np.ones((len(CORPUS), 2), np.float32), [" ".join(analyze(t)) for t in CORPUS])
    yield s
    s.close()


def test_fts5_bm25_agrees_with_bm25s(store):
    bm25s = pytest.importorskip("bm25s")
    # FTS5's bm25() is Okapi BM25 with k1=1.2, b=0.75 and Robertson's IDF.
    retriever = bm25s.BM25(method="robertson", k1=1.2, b=0.75)
    retriever.index([analyze(t) for t in CORPUS], show_progress=False)
    rowid_to_idx = {r: int(store.chunks([r])[r].id[1:]) for r, _ in store.keyword_search(
        sorted({t for text in CORPUS for t in analyze(text)}), 100, None)}
    for q in QUERIES:
        toks = analyze(q)
        ours = [rowid_to_idx[r] for r, _ in store.keyword_search(toks, 3, None)]
        scores = retriever.get_scores(toks)
        matched = [i for i in np.argsort(-scores, kind="stable") if scores[i] > 0][:3]
        assert ours[0] == matched[0], q
        assert set(ours) == set(matched), q


def test_analyze_from_many_threads_at_once():
    """The server analyses queries while its worker indexes, and indexing reads ahead on a second thread."""
    from concurrent.futures import ThreadPoolExecutor

    texts = ["賃金は毎月25日に支払われる。Wages are paid monthly.", "年次有給休暇は入社6か月後に10日付与する。"] * 100
    want = [analyze(t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(analyze, texts)) == want

