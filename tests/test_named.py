"""What a question names: found in English and Japanese, and the documents naming it placed first."""
import numpy as np

from kotae.search.named import asked, first


def test_the_names_a_question_asks_about():
    assert asked("What was Intel's research and development expense in Q3 2023?") == (("intel",),)
    assert asked("Aozora LabsのPCは何分操作しないと画面ロックされますか。") == (("aozora", "lab"), ("pc",))
    assert asked("給料はいつ支払われますか") == ()
    assert asked("How many days can I work from home?") == ()  # a capital that opens a sentence names nothing
    assert asked("What were total assets at March 31, 2023?") == ()  # nor does a month


def test_first_moves_the_documents_naming_more_ahead_and_keeps_each_group_in_order():
    ranked = [(1, 3.0), (2, 2.5), (3, 2.0), (4, 1.0)]
    assert first(ranked, {1: 0, 2: 1, 3: 2, 4: 1}) == [(3, 2.0), (2, 2.5), (4, 1.0), (1, 3.0)]
    assert first(ranked, {1: 1, 2: 1, 3: 1, 4: 1}) == ranked  # every document names it: no change
    assert first(ranked, {}) == ranked


def test_searcher_places_the_company_the_question_names_first(tmp_path, fake_embedder):
    from kotae.config import SearchSettings
    from kotae.search import Searcher
    from kotae.search.analyze import analyze
    from kotae.store import open_store
    from kotae.types import Chunk, DocumentInfo

    # two filings that read alike; the company is named on the cover page, not on the page with the figure
    pages = {"intel": ["Intel Corporation Form 10-Q", "Research and development expense was $4,000 million."],
             "msft": ["Microsoft Corporation Form 10-Q", "Research and development expense was $6,000 million."]}
    store = open_store(str(tmp_path / "idx"))
    store.bind_model("m@1/4")
    for i, (name, texts) in enumerate(pages.items()):
        info = DocumentInfo(id=name, path=f"/d/{name}.pdf", file=f"{name}.pdf", kind="pdf", sha256=name, pages=2,
                            chunks=2, lang="en", indexed_at="2026-01-01T00:00:00+00:00")
        chunks = [Chunk(id=f"{name}{p}", doc_id=name, file=f"{name}.pdf", page=p + 1, heading=(), text=t, start=0,
                        end=len(t), lang="en", ordinal=p) for p, t in enumerate(texts)]
        vecs = np.asarray([[0.2, 1.0, 0, 0], [1.0, 0.1 * (1 - i), 0, 0]], np.float32)
        store.write_document(info, texts, chunks, [f"{name}{p}" for p in range(2)],
                             vecs / np.linalg.norm(vecs, axis=1, keepdims=True), [" ".join(analyze(t)) for t in texts])
    q = np.array([1, 0, 0, 0], np.float32)
    question = "What was Intel's research and development expense?"
    off = Searcher(store, fake_embedder, SearchSettings(names_first=False)).search(question, mode="dense", vector=q)
    on = Searcher(store, fake_embedder, SearchSettings(names_first=True))
    assert [h.chunk.id for h in off.hits][:2] == ["msft1", "intel1"]
    assert [h.chunk.id for h in on.search(question, mode="dense", vector=q).hits][:2] == ["intel1", "intel0"]
    # a name both documents hold, or none, leaves the ranking as it was
    for q2 in ("What was the research and development expense?", "What was the Form 10-Q expense?"):
        assert [h.chunk.id for h in on.search(q2, mode="dense", vector=q).hits][:2] == ["msft1", "intel1"]
    store.close()
