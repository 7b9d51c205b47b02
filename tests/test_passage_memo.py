"""Sentence vectors kept across questions (kotae.embed.memo): the same vectors, each text embedded once."""
import numpy as np

from conftest import FakeEmbedder
from kotae.embed.memo import PassageMemo


def test_kept_vectors_are_the_embedders_and_each_text_is_embedded_once():
    e = FakeEmbedder()
    memo = PassageMemo(e, keep=3)
    texts = ["paid leave is 20 days", "overtime is paid at 125%", "paid leave is 20 days"]
    got = memo.passages(texts)
    assert np.array_equal(got, e.passages(texts))
    e.calls.clear()
    again = memo.passages(["overtime is paid at 125%", "the office opens at 9"])
    assert e.embedded == 1  # only the new text
    assert np.array_equal(again, e.passages(["overtime is paid at 125%", "the office opens at 9"]))
    e.calls.clear()
    memo.passages(["a", "b"])  # 4 texts seen, 3 kept: the least recently used ("paid leave") is dropped
    memo.passages(["paid leave is 20 days"])
    assert e.embedded == 3
    assert memo.passages([]).shape == (0, e.dim)


def test_extractive_answers_reuse_the_sentences_of_a_passage_asked_before(tmp_path):
    from kotae.facade import Kotae
    from kotae.store import open_store

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text("# Leave\n\nPaid leave is 20 days a year. It is granted in April.\n\n"
                                   "# Overtime\n\nOvertime is paid at 125 percent. Night work is paid at 150 percent.\n")
    e = FakeEmbedder()
    with Kotae(open_store(str(tmp_path / "idx")), e) as k:
        k.index([str(docs)], isolate=False)
        first = k.ask("How many days of paid leave?")
        e.calls.clear()
        second = k.ask("How many days of paid leave?")
        assert first.found_in_docs and second.answer == first.answer
        assert not [n for kind, n in e.calls if kind == "passage"]  # its sentences were kept
