"""Dense search without hubness: a chunk near every off-topic question says little about any one question."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import FakeEmbedder, new_pg_index
from kotae import Kotae, Record
from kotae.config import SearchSettings, Settings
from kotae.search import hubness
from kotae.store import open_store


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.array(rows, np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_hubness_is_the_mean_of_the_nearest_null_questions():
    null = _unit([[1, 0], [1, 0.1], [0, 1]])
    chunks = _unit([[1, 0], [0, 1]])
    got = hubness.penalties(null, chunks, k=2)
    sims = null @ chunks.T
    assert np.allclose(got, [np.sort(sims[:, 0])[-2:].mean(), np.sort(sims[:, 1])[-2:].mean()])
    assert hubness.penalties(null[:1], chunks, k=10).shape == (2,)  # fewer questions than k: all of them
    assert hubness.penalties(null, chunks[:0]).shape == (0,)


def test_the_corrected_ranking_lowers_each_similarity_by_its_hubness():
    dense = [(1, 0.80), (2, 0.78), (3, 0.50)]
    assert hubness.corrected(dense, {1: 0.4, 2: 0.1}, 0.5) == [(2, 0.73), (1, 0.6000000000000001), (3, 0.5)]
    assert hubness.corrected(dense, {}, 1.0) == dense  # unknown hubness: unchanged


def test_hubness_is_relative_to_the_chunk_language():
    null = {"en": _unit([[1, 0, 0], [0.9, 0.1, 0]])}
    vectors = _unit([[1, 0, 0], [0.8, 0.2, 0], [0, 0, 1], [0, 0.1, 1]])
    center = hubness.centers(null, vectors, ["en", "en", "ja", "ja"])
    raw = hubness.penalties(null["en"], vectors)
    assert np.isclose(center["en"]["en"], raw[:2].mean()) and np.isclose(center["en"]["ja"], raw[2:].mean())
    kept = hubness.NullVectors("m", null, center)
    rel = kept.relative("en", raw, ["en", "en", "ja", "ja"])
    assert np.isclose(rel[:2].sum(), 0) and np.isclose(rel[2:].sum(), 0)  # English chunks lose no more than Japanese
    again = hubness.NullVectors.from_json(kept.to_json())  # kept with the index as float16
    assert again.model == "m" and again.center == center and np.allclose(again.by_lang["en"], null["en"], atol=1e-3)
    assert again.stamp() == kept.stamp() != hubness.NullVectors("other", null, center).stamp()
    assert hubness.NullVectors("m", null, {"en": {"en": 0.5}}).stamp() != kept.stamp()  # new centers: read again


@pytest.fixture(params=["sqlite", "postgres"])
def location(request, tmp_path) -> str:
    """An empty index: a folder, or a schema of its own on the test PostgreSQL server (exact vector search)."""
    if request.param == "sqlite":
        return str(tmp_path / "idx")
    return new_pg_index(request.getfixturevalue("pg_server"), exact=True)


# the guide names what many of the bundled English negatives ask about (office, time off, leave, policy)
RECORDS = [Record("guide", "Office policy: how much time off, leave and holidays employees get each year; "
                           "parking permit.", "Guide"),
           Record("permit", "Parking permit: apply at reception with your badge; the permit is free and valid for "
                            "one year.", "Parking"),
           *[Record(f"note{i}", f"Filler note {i} about printer toner and desk booking {i}.", f"Note {i}")
             for i in range(6)]]
QUESTION = "Where do I get a parking permit?"


def test_a_chunk_near_every_off_topic_question_loses_its_tie(location):
    with Kotae(open_store(location), FakeEmbedder(), Settings()) as k:
        k.index_records(RECORDS, "office")  # self-calibrates, as `kotae index` does
        assert k.searcher.null_vectors("en") is not None  # kept by the self-calibration
        plain = k.using(settings=Settings(search=SearchSettings(hubness=0.0))).search(QUESTION, mode="dense")
        assert [h.chunk.heading[0] for h in plain.hits[:2]] == ["Guide", "Parking"]
        assert plain.hits[0].similarity > plain.hits[1].similarity
        fixed = k.search(QUESTION, mode="dense")  # search.hubness 0.5, the default
        assert [h.chunk.heading[0] for h in fixed.hits[:2]] == ["Parking", "Guide"]
        assert fixed.hits[1].similarity == plain.hits[0].similarity  # hits report the similarity itself
        assert fixed.gate.similarity == plain.gate.similarity  # and the gate weighs it


def test_an_index_without_kept_null_questions_searches_as_before(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        k.index_records(RECORDS, "office")
        k.store.set_meta(hubness.STAMP, "")  # as an index calibrated before kotae kept them
        assert k.searcher.null_vectors("en") is None
        assert [h.chunk.heading[0] for h in k.search(QUESTION, mode="dense").hits[:2]] == ["Guide", "Parking"]


def test_damaged_kept_null_questions_are_searched_without(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        k.index_records(RECORDS, "office")
        k.store.set_meta(hubness.META, '{"model": "fake@1/256", "langs": {"en": {"n": 3')  # cut short
        k.store.set_meta(hubness.STAMP, "damaged")
        assert k.searcher.null_vectors("en") is None
        assert [h.chunk.heading[0] for h in k.search(QUESTION, mode="dense").hits[:2]] == ["Guide", "Parking"]
