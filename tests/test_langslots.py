"""Other-language slots: a Japanese chunk that stands out of the Japanese chunks is placed at rank 2 for an English
question (and the reverse); rank 1 never moves."""
import hashlib
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed.base import Embedder, Kind
from kotae.search.analyze import analyze
from kotae.search.langslots import LangStats, place_other


def _stats(seed: int = 0) -> tuple[np.ndarray, list[str], LangStats]:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(12, 8)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    langs = ["ja"] * 6 + ["en"] * 5 + ["mixed"]
    return v, langs, LangStats.from_vectors(v, langs)


def test_z_is_the_similarity_against_its_languages_mean_and_spread():
    v, langs, st = _stats()
    q = v[0] + v[7]
    q /= np.linalg.norm(q)
    for la in ("ja", "en"):
        sims = v[np.array(langs) == la] @ q
        assert abs(st.z(q, la, float(sims[0])) - (sims[0] - sims.mean()) / sims.std()) < 1e-3
    assert st.bilingual()
    assert not LangStats.from_vectors(v[:6], langs[:6]).bilingual()


def test_place_other_puts_the_other_languages_best_behind_rank_one():
    _, _, st = _stats()
    langs = {1: "en", 2: "en", 3: "en", 10: "ja", 11: "ja"}
    ranked = [(1, 0.9), (2, 0.8), (3, 0.7), (10, 0.1)]
    dense = [(1, 0.9), (2, 0.89), (3, 0.88), (10, 0.5), (11, 0.4)]
    always = replace(st, mean={la: np.zeros(8) for la in ("ja", "en")},
                     cov={"ja": np.eye(8) * 0.01, "en": np.eye(8)})  # ja's spread is small: its best stands out
    q = np.ones(8) / np.sqrt(8)
    out = place_other(ranked, dense, langs, "en", q, always, slots=2, rank=2)
    assert [r for r, _ in out] == [1, 10, 11, 2, 3]
    assert out[1][1] == 0.9  # a placed chunk takes the score of the hit before it
    assert [r for r, _ in place_other(ranked, dense, langs, "en", q, always, slots=1, rank=3)] == [1, 2, 10, 3]
    # nothing: slots off, the question is in neither language, the other language is near the top already,
    # or its best does not stand out of its own language as far as the question language's best
    assert place_other(ranked, dense, langs, "en", q, always, slots=0, rank=2) == ranked
    assert place_other(ranked, dense, langs, "other", q, always, slots=2, rank=2) == ranked
    assert place_other([(1, 0.9), (10, 0.8), (2, 0.7)], dense, langs, "en", q, always, 2, 2)[:2] == [(1, 0.9),
                                                                                                    (10, 0.8)]
    never = replace(always, cov={"ja": np.eye(8), "en": np.eye(8) * 0.01})
    assert place_other(ranked, dense, langs, "en", q, never, slots=2, rank=2) == ranked


CONCEPTS = {"cafeteria": "canteen", "食堂": "canteen", "wifi": "network", "ネットワーク": "network"}


class BiasedEmbedder(Embedder):
    """Words → concept dimensions, plus a strong language direction, as e5's similarities run higher within a
    language: an English question is closer to every English chunk than to the Japanese chunk on its topic."""

    name, version, dim = "biased", "1", 64

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            ja = any("\u3040" <= ch <= "\u9fff" for ch in t)
            out[i, 0 if ja else 1] = 3.0
            for tok in analyze(t):
                word = CONCEPTS.get(tok, tok)
                out[i, 2 + int(hashlib.md5(word.encode()).hexdigest(), 16) % (self.dim - 2)] += 2.0 if word in CONCEPTS.values() else 1.0
        return out

    def count_tokens(self, text: str) -> int:
        return 2 + len(text) // 2


def test_an_english_question_finds_the_japanese_chunk_on_its_topic_at_rank_two(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    en = ["Annual leave is twenty days a year.", "Book business travel through the travel portal.",
          "Laptops lock after five minutes idle.", "Expense reports are due monthly.",
          "Parental leave lasts until the child turns two."]
    ja = ["社員食堂は11時30分から14時まで営業します。", "年次有給休暇は入社6か月後に10日付与する。",
          "賃金は毎月25日に支払う。", "退職するときは30日前までに届け出る。", "懲戒処分は譴責、減給、出勤停止とする。"]
    for i, text in enumerate(en + ja):
        (docs / f"d{i}.md").write_text(text, encoding="utf-8")
    with Kotae.open(str(tmp_path / "idx"), settings=Settings(), embedder=BiasedEmbedder()) as k:
        k.index([str(docs)])
        langs, stats = k.searcher.language_stats()
        assert sorted(set(langs.values())) == ["en", "ja"] and stats is not None
        # the slots alone: the lexicon's translations (keyword and dense) would find 食堂 by themselves
        on = k.using(settings=Settings(search=SearchSettings(other_language_rank=2, translations=0))).search(
            "When is the cafeteria open?", top_k=5)
        off = k.using(settings=Settings(search=SearchSettings(other_language_slots=0, translations=0))).search(
            "When is the cafeteria open?", top_k=5)
        assert on.hits[0].chunk.id == off.hits[0].chunk.id  # rank 1 never moves
        assert "食堂" in on.hits[1].chunk.text
        assert all("食堂" not in h.chunk.text for h in off.hits[:2])


class CountingStore:
    """A store that counts how often every chunk's language is read (all else passes through)."""

    def __init__(self, store):  # type: ignore[no-untyped-def]
        self._store, self.reads = store, 0

    def chunk_languages(self):  # type: ignore[no-untyped-def]
        self.reads += 1
        return self._store.chunk_languages()

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self._store, name)


def test_a_monolingual_corpus_never_reads_every_chunk_s_language(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(["賃金は毎月25日に支払う。", "社員食堂は11時30分から14時まで営業します。"]):
        (docs / f"d{i}.md").write_text(text, encoding="utf-8")
    with Kotae.open(str(tmp_path / "idx"), settings=Settings(), embedder=BiasedEmbedder()) as k:
        k.index([str(docs)])  # self-calibration records the corpus' language counts
        counting = CountingStore(k.searcher.store)
        k.searcher.store = counting
        assert k.searcher.language_stats() == ({}, None) and counting.reads == 0
