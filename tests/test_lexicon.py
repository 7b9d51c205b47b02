"""The English ↔ Japanese keyword lexicon (kotae.search.lexicon) and its use in keyword search."""
import json

import pytest

from kotae.config import IndexSettings, SearchSettings
from kotae.pipeline import index_paths
from kotae.search import Searcher, autocal, lexicon
from kotae.search import searcher as searcher_module
from kotae.search.analyze import analyze
from kotae.store import open_store

LINES = ["side job\t副業\tアルバイト", "side\t側\t横", "job\t仕事\t職", "wage\t賃金\t労賃\t工賃", "pay\t払う\t給与\t賃金"]


def test_matches_take_the_longest_phrase_and_its_words_start_nothing():
    lex = lexicon.Lexicon.from_lines(LINES)
    assert lexicon.matches(["side", "job", "wage"], lex.en_ja) == [
        (0, 2, (("副業",), ("アルバイト",))), (2, 3, (("賃金",), ("労賃",), ("工賃",)))]
    assert lexicon.translations(["side", "job"], "en", lex) == ["副業", "アルバイト"]
    assert lexicon.translations(["wage"], "en", lex, per_term=2) == ["賃金", "労賃"]


def test_the_japanese_side_reads_the_table_backwards_best_ranked_gloss_first():
    lex = lexicon.Lexicon.from_lines(LINES)
    assert lexicon.translations(["賃金"], "ja", lex) == ["wage", "pay"]  # rank 0 under wage, rank 2 under pay
    assert lexicon.translations(["副業"], "ja", lex) == ["side", "job"]


def test_a_passage_holding_a_translation_holds_the_question_word():
    lex = lexicon.Lexicon.from_lines(LINES)
    assert lexicon.held_through_translation(["wage", "month"], ["賃金", "月末"], "en", lex) == ["wage"]
    assert lexicon.held_through_translation(["wage"], ["賃金", "月末"], "en", lex, per_term=0) == []


def test_the_bundled_lexicon_knows_workplace_words():
    lex = lexicon.bundled()
    for en, ja in (("wages", "賃金"), ("side job", "副業"), ("cafeteria", "食堂"), ("overtime", "残業")):
        assert ja in lexicon.translations(analyze(en), "en", lex, per_term=3), en
    assert "salari" in lexicon.translations(analyze("給料"), "ja", lex, per_term=3)


def test_the_bundled_lexicon_knows_workplace_compounds():
    lex = lexicon.bundled()
    for en, ja in (("extension number", "内線"), ("overtime work", "時間"), ("New Year's holiday", "年末")):
        assert ja in lexicon.translations(analyze(en), "en", lex, per_term=3), en


def test_on_demand_lookups_give_the_bundled_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lexicon.on_demand.cache_clear()
    try:
        lazy, full = lexicon.on_demand(), lexicon.bundled()
        assert lazy is not full and list((tmp_path / "cache" / "kotae").glob("lexicon-*.sqlite3"))
        for q in ("What is the extension number of the accounting department?", "Can I have a side job?",
                  "時間外労働の割増率は", "給料はいつ支払われますか", "overtime pay for a paid vacation day"):
            toks = analyze(q)
            for source in ("en", "ja"):
                assert lexicon.spans(toks, source, lazy) == lexicon.spans(toks, source, full)
                assert lexicon.translations(toks, source, lazy) == lexicon.translations(toks, source, full)
                assert lexicon.candidates(toks, source, lazy) == lexicon.candidates(toks, source, full)
        assert lexicon.on_demand() is lazy  # once per process
    finally:
        lexicon.on_demand.cache_clear()


DOCS = {"rules.md": "# 食堂\n\n社員食堂の営業は11時から14時までとする。\n",
        "parking.md": "# Parking\n\nThe parking lot opens at seven in the morning.\n"}


def bilingual_store(tmp_path, embedder, docs: dict[str, str]):  # type: ignore[no-untyped-def]
    """An index of `docs` (file name → text) that records its languages, as `kotae index` leaves it."""
    (tmp_path / "docs").mkdir()
    for name, text in docs.items():
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    index_paths([str(tmp_path / "docs")], store, embedder, IndexSettings())
    # what the gate's self-calibration records at the end of `kotae index`: the corpus' languages
    store.set_meta("corpus_langs", json.dumps(autocal.languages([t for _, t in store.chunk_texts()])))
    return store


def test_an_english_question_finds_a_japanese_chunk_through_the_lexicon(tmp_path, fake_embedder):
    store = bilingual_store(tmp_path, fake_embedder, DOCS)
    plain = SearchSettings(synonyms=False)  # the lexicon alone, not a synonym group, finds it
    on = Searcher(store, fake_embedder, plain)
    off = Searcher(store, fake_embedder, SearchSettings(synonyms=False, translations=0))
    q = "When does the staff cafeteria open?"
    found = [h.chunk.text for h in on.search(q, mode="keyword").hits]
    assert found and "食堂" in found[0]
    assert on.search(q, mode="keyword").gate.coverage > 0  # the gate counts cafeteria as held by 食堂
    assert all("食堂" not in h.chunk.text for h in off.search(q, mode="keyword").hits)
    store.close()


def test_a_corpus_without_the_other_language_translates_nothing(tmp_path, fake_embedder):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(DOCS["rules.md"], encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    index_paths([str(tmp_path / "docs")], store, fake_embedder, IndexSettings())
    searcher = Searcher(store, fake_embedder)
    assert searcher.translation_source("食堂は何時から？") is None  # no record of the languages yet
    store.set_meta("corpus_langs", json.dumps(autocal.languages([t for _, t in store.chunk_texts()])))
    searcher = Searcher(store, fake_embedder)
    assert searcher.translation_source("食堂は何時から？") is None  # no English chunk to search
    assert searcher.translation_source("When does the cafeteria open?") == "en"
    store.close()


def test_a_japanese_question_is_translated_by_its_nouns_alone():
    lex = lexicon.Lexicon.from_lines([*LINES, "patent\t特許", "take\t取る", "typewriter\tタイプライター"])
    assert lexicon.translations(["タイプライター", "特許", "取る"], "ja", lex) == ["typewriter", "patent"]
    assert lexicon.nominal(("特許",)) and not lexicon.nominal(("取る",)) and not lexicon.nominal(("3",))
    assert lexicon.held_through_translation(["特許", "取る"], ["patent", "take"], "ja", lex) == ["特許"]


def test_a_japanese_question_finds_an_english_chunk_at_a_lower_weight(tmp_path, fake_embedder):
    docs = {**DOCS, "badge.md": "# Badges\n\nA lost badge is replaced by the front desk for a fee.\n"}
    store = bilingual_store(tmp_path, fake_embedder, docs)
    on = Searcher(store, fake_embedder, SearchSettings(synonyms=False))
    off = Searcher(store, fake_embedder, SearchSettings(synonyms=False, translations=0))
    q = "バッジをなくしたらどうする？"
    found = on.search(q, mode="keyword")
    assert found.hits and "badge" in found.hits[0].chunk.text
    # the gate counts them only where the closest passage is in English (社員旅行 held as "travel" by an English
    # travel policy made a trip look answered over Japanese rules); here it is
    assert found.gate.coverage > 0 and found.hits[0].chunk.lang == "en"
    # the keyword weight in fusion counts them always: the keyword arm searched those words
    assert on.arms(q, 10).coverage > 0
    saved_gate, searcher_module.GATE_TRANSLATIONS_OTHER_TOP = searcher_module.GATE_TRANSLATIONS_OTHER_TOP, False
    try:
        assert on.search(q, mode="keyword").gate.coverage == 0
    finally:
        searcher_module.GATE_TRANSLATIONS_OTHER_TOP = saved_gate
    assert not off.search(q, mode="keyword").hits
    assert found.hits[0].bm25 is not None
    weighted = found.hits[0].bm25
    lexicon.SOURCE_WEIGHT["ja"], saved = 1.0, lexicon.SOURCE_WEIGHT["ja"]
    try:
        full = on.search(q, mode="keyword").hits[0].bm25
    finally:
        lexicon.SOURCE_WEIGHT["ja"] = saved
    assert weighted == pytest.approx(saved * full)
    # its translations do not lift the dense search (measured worse): no translated words are embedded
    assert "embed_translation" not in on.search(q, mode="dense").timings_ms
    store.close()


def test_translations_the_corpus_holds_come_first():
    lex = lexicon.Lexicon.from_lines(LINES)
    held = {"工賃"}.__contains__
    assert lexicon.translations(["wage"], "en", lex, per_term=1, held=lambda p: all(map(held, p))) == ["工賃"]
    assert lexicon.candidates(["wage", "pay"], "en", lex) == ["賃金", "労賃", "工賃", "払う", "給与"]


def test_the_translated_words_lead_dense_search_to_the_other_language(tmp_path, fake_embedder):
    docs = {**DOCS, "hours.md": "# 営業時間\n\n売店の営業は9時から17時までとする。\n",
            "badge.md": "# Badges\n\nA lost badge is replaced by the front desk for a fee.\n"}
    store = bilingual_store(tmp_path, fake_embedder, docs)
    q = "When does the staff cafeteria open?"
    on = Searcher(store, fake_embedder, SearchSettings(synonyms=False))
    off = Searcher(store, fake_embedder, SearchSettings(synonyms=False, translation_dense=0.0))
    found = on.search(q, mode="dense")
    assert "食堂" in found.hits[0].chunk.text and found.timings_ms["embed_translation"] >= 0
    assert "食堂" not in off.search(q, mode="dense").hits[0].chunk.text  # the hashed words share no bucket
    # the gate sees the question as asked: its top similarity does not move
    assert found.gate.similarity == off.search(q, mode="dense").gate.similarity
    # an English chunk keeps the question's own score
    parking = "When does the parking lot open?"
    assert on.search(parking, mode="dense").hits[0].similarity == off.search(parking, mode="dense").hits[0].similarity
    store.close()


def test_an_english_question_quotes_the_japanese_sentence_that_answers_it(tmp_path, fake_embedder):
    from kotae.answer.ask import ask
    from kotae.config import GateSettings

    docs = {**DOCS, "badge.md": "# Badges\n\nA lost staff badge is replaced by the front desk for a fee.\n"}
    store = bilingual_store(tmp_path, fake_embedder, docs)
    every = GateSettings(min_margin=-1.0)  # the sentence choice, not the gate, is under test
    on = Searcher(store, fake_embedder, SearchSettings(synonyms=False, gate=every), fixed_gate=True)
    off = Searcher(store, fake_embedder, SearchSettings(synonyms=False, translation_dense=0.0, gate=every),
                   fixed_gate=True)
    q = "What are the staff cafeteria hours?"
    assert ask(q, on, mode="hybrid").answer.startswith("社員食堂の営業は11時から14時まで")
    assert "badge" in ask(q, off, mode="hybrid").answer  # the hashed words share no bucket with 食堂
    store.close()
