"""The gate calibrates itself (bundled negatives, pseudo-questions from the index) and refuses in plain words."""
from __future__ import annotations

import json
import os

import pytest

from conftest import ROOT, FakeEmbedder
from kotae import Kotae, Record
from kotae.cli import main
from kotae.config import GateSettings, Settings
from kotae.search import autocal
from kotae.search import searcher as searcher_module
from kotae.search.analyze import analyze, file_tokens, names, words
from kotae.search.gate import absent_names, absent_share, absent_terms, calibrate, decide, explain
from kotae.search.lexicon import romanised_japanese
from kotae.store import open_store

RULES = os.path.join(ROOT, "samples", "docs")


def test_the_bundled_negatives_are_many_varied_and_bilingual():
    qs = autocal.negatives()
    ja = [q for q in qs if any("\u3040" <= ch <= "\u30ff" for ch in q)]
    assert len(qs) == len(set(qs)) >= 600 and len(ja) >= 300 and len(qs) - len(ja) >= 300
    kinds = set()
    for name in ("ja.jsonl", "en.jsonl"):
        with open(os.path.join(ROOT, "src", "kotae", "data", "negatives", name), encoding="utf-8") as f:
            kinds |= {json.loads(line)["kind"] for line in f}
    assert kinds == {"fact", "howto", "opinion", "other-company", "near-domain"}


def test_pseudo_questions_take_part_of_a_sentence_and_are_deterministic():
    texts = ["賃金は、毎月末日に締め切り、翌月25日に従業員の指定する銀行口座への振込みにより支払うものとする。",
             "Employees may work from home up to two days per week with the approval of their manager."]
    a = autocal.pseudo_questions(texts, seed=3)
    assert a == autocal.pseudo_questions(texts, seed=3) and len(a) == 2
    english = next(q for q in a if q.isascii())
    assert 3 <= len(english.split()) < len(texts[1].split())
    japanese = next(q for q in a if not q.isascii())
    assert 12 <= len(japanese) < 30 and japanese in texts[0]  # no noise given: a plain span
    noisy = autocal.pseudo_questions(texts, seed=3, noise=["What is the capital of Australia?"])
    assert len(noisy) == 2 and noisy != a


def test_refits_when_the_corpus_grew_by_a_quarter_never_over_the_user_s_own():
    fitted = autocal.CalibrationState("auto", chunks=100, design=autocal.DESIGN)
    assert autocal.needs_fit(autocal.CalibrationState("default"), 10)
    assert not autocal.needs_fit(autocal.CalibrationState("default"), 0)
    assert not autocal.needs_fit(fitted, 120) and autocal.needs_fit(fitted, 130) and autocal.needs_fit(fitted, 70)
    assert not autocal.needs_fit(autocal.CalibrationState("user", chunks=100), 1000)
    # a fit an older kotae recorded (no design: its margin was over every chunk) is redone at any size
    older = autocal.state(json.dumps({"source": "auto", "chunks": 100}))
    assert older.design == 1 and autocal.needs_fit(older, 100)
    assert "run `kotae calibrate` again" in autocal.state(json.dumps({"source": "user"})).describe()


def test_indexing_again_refits_a_gate_an_older_kotae_fitted(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([RULES])
        recorded = json.loads(k.store.meta(autocal.META) or "{}")
        assert recorded["design"] == autocal.DESIGN
        k.store.set_meta(autocal.META, json.dumps({**recorded, "design": 1, "fitted_at": "2026-01-01T00:00:00+00:00"}))
        report = k.index([RULES])  # nothing new to read
        assert not report.indexed and k.calibration().design == autocal.DESIGN
        assert k.calibration().fitted_at != "2026-01-01T00:00:00+00:00"


def test_fit_takes_its_thresholds_from_the_negatives_evidence():
    positive = [(0.10 + i / 1000, 0.6) for i in range(40)]
    negative = [(0.03 + i / 2000, 0.1 + i / 1000) for i in range(40)]
    settings, state = autocal.fit(positive, negative, chunks=50)
    assert state.source == "auto" and state.chunks == 50 and (state.positives, state.negatives) == (40, 40)
    assert state.refused_negatives == pytest.approx(autocal.Q_RESCUE, abs=0.03) and state.refused_positives == 0.0
    margins = sorted(m for m, _ in negative)
    assert margins[int(autocal.Q_RESCUE * 40) - 2] < settings.min_margin <= margins[-1]
    assert settings.min_similarity_ja == settings.min_similarity_en == 1.01  # no similarities given: never


def test_the_similarity_threshold_is_per_question_language():
    # English questions' e5 similarities sit lower than Japanese ones': each language gets its own null
    negative = [("ja", 0.03, 0.0, 0.0, 1.0, 0.80 + i / 1000) for i in range(40)] + \
               [("en", 0.03, 0.0, 0.0, 1.0, 0.75 + i / 1000) for i in range(40)]
    positive = [("ja", 0.03, 0.0, 0.0, 1.0, 0.87), ("en", 0.03, 0.0, 0.0, 1.0, 0.80)]
    settings, state = autocal.fit(positive, negative, chunks=50)
    q = autocal.Q_SIMILARITY
    assert settings.min_similarity_ja == pytest.approx(0.80 + q * 0.039, abs=0.002)
    assert settings.min_similarity_en == pytest.approx(0.75 + q * 0.039, abs=0.002)
    assert state.refused_positives == 0.0 and state.refused_negatives == pytest.approx(q, abs=0.05)
    assert not decide(0.80, 0.03, 0.0, settings, lang="ja").found and decide(0.80, 0.03, 0.0, settings, lang="en").found
    assert decide(0.87, 0.0, 0.0, settings, lang="ja").reason.startswith("top similarity 0.870 ≥ ")


def test_absent_terms_name_the_words_the_documents_never_contain():
    df = {"年": 3, "国": 2}
    assert absent_terms(words("2018年のFIFAワールドカップで優勝した国は？"), df) == \
        ["ワールドカップ", "2018", "FIFA", "優勝"]
    assert absent_terms(words("量子コンピュータの原理を説明してください"), {}) == ["量子コンピュータ", "原理"]
    assert absent_terms(words("Who won the 2018 FIFA World Cup?"), {"won": 1}) == ["2018 FIFA World Cup"]
    assert absent_terms(words("社員食堂の営業時間は？"), {"社員": 1, "食堂": 1, "営業": 1, "時間": 4}) == []
    # a word the documents hold through a synonym is not named; a compound with a piece they lack is, whole
    assert absent_terms(words("ボーナスって年に何回出るの？"), {"年": 3, "回": 5, "出る": 2},
                        held=frozenset({"ボーナス"})) == []
    assert absent_terms(words("社員旅行の行き先は？"), {}, held=frozenset({"旅行"})) == ["社員旅行", "行き先"]


def test_explanations_are_plain_words_in_the_question_s_language():
    assert explain(["ワールドカップ", "FIFA"], 0.0, "ja") == "資料には「ワールドカップ」「FIFA」についての記載がありません"
    assert explain(["FIFA"], 0.0, "en") == 'The documents never mention "FIFA".'
    assert explain([], 0.25, "en") == ("No passage of the documents answers this (the closest one holds only 25% "
                                       "of the question's words).")
    assert "25%" in explain([], 0.25, "ja")
    # one of the closest passages is in the other language: asking in it may find the answer
    assert explain([], 0.0, "ja", "stanley-cups.xlsx") == (
        "近い箇所の一つは英語の資料（stanley-cups.xlsx）にありますが、答えとするには確かさが足りません。英語で質問すると見つかることがあります")
    assert "asking in Japanese" in explain([], 0.0, "en", "faq.md")
    assert explain(["FIFA"], 0.0, "en", "faq.md") == 'The documents never mention "FIFA".'  # absent words first


def test_an_index_calibrates_itself_and_says_so(tmp_path, capsys):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        assert k.calibration().source == "default"
        k.index([RULES])
        state = k.calibration()
        assert state.source == "auto" and state.chunks == sum(d.chunks for d in k.documents())
        assert state.negatives == len(autocal.negatives()) and state.positives > 50
        gate = k.searcher.gate_settings()
        assert (gate.min_margin, gate.min_coverage) == pytest.approx((state.min_margin, state.min_coverage))
        assert k.self_calibrate() is None  # unchanged corpus: no refit
        answer = k.ask("Who won the 2018 FIFA World Cup?")
        assert answer.calibration["source"] == "auto" and "self-calibrated" in answer.calibration["summary"]
        if not answer.found_in_docs:
            assert answer.notices[-1].startswith('not found in the documents: The documents never mention "2018 FIFA')
        k.calibrate([("年次有給休暇は何日付与されますか", True), ("火星の首都はどこですか", False)])
        assert k.calibration().source == "user"
        k.index([os.path.join(ROOT, "samples", "make_samples.py")])  # grows the corpus: the user's fit stays
        assert k.calibration().source == "user"
    assert main(["--index", str(tmp_path / "idx"), "--model", "fake", "list"]) == 0
    assert "gate calibrated on your labelled questions" in capsys.readouterr().out


def test_explicit_gate_settings_win_over_the_index_s_calibration(tmp_path):
    from kotae import load_settings

    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([RULES])
        assert k.calibration().source == "auto"
    settings = load_settings({"embed.model": "fake"}, {"KOTAE_SEARCH_GATE_MIN_MARGIN": "0.5"})
    with Kotae.open(str(tmp_path / "idx"), settings=settings) as k:
        gate = k.searcher.gate_settings()
        assert (gate.min_margin, gate.min_coverage) == (0.5, 0.35)


def test_an_index_calibrated_by_an_older_kotae_keeps_the_user_s_thresholds(tmp_path):
    store = open_store(str(tmp_path / "idx"))
    store.set_meta("gate", json.dumps({"min_margin": 0.07, "min_coverage": 0.2}))  # `kotae calibrate`, before
    with Kotae(store, FakeEmbedder()) as k:
        assert k.calibration().source == "user"
        k.index([RULES])
        assert k.calibration().source == "user" and k.searcher.gate_settings().min_margin == 0.07


# --- evidence beyond the margin: words the corpus never holds, and the corpus' languages ----------------
def test_absent_share_counts_content_words_no_chunk_holds_unless_a_synonym_does():
    tokens = ["ワールドカップ", "優勝", "国", "教える"]  # 教える only asks
    assert absent_share(tokens, {"国": 3}) == (2 / 3, 3)
    # 優勝 is held through a synonym entry whose group occurs in the corpus
    assert absent_share(tokens, {"国": 3}, [(1, 2, True)]) == (1 / 3, 3)
    assert absent_share(tokens, {"国": 3}, [(1, 2, False)]) == (2 / 3, 3)
    assert absent_share(["教える"], {}) == (0.0, 0)


def test_absent_words_refuse_only_where_the_corpus_holds_the_question_s_language():
    s = GateSettings(min_margin=0.05, min_coverage=0.3, max_absent=0.7)
    assert not decide(0.8, 0.09, 0.9, s, absent=0.8, lang_share=0.9).found  # off-topic words, same language
    assert "80% of the question's content words in no document" in decide(0.8, 0.09, 0.9, s, absent=0.8).reason
    # an English question over Japanese documents: its words are absent, the dense margin decides
    assert decide(0.8, 0.09, 0.0, s, absent=1.0, lang_share=0.05).found
    assert not decide(0.8, 0.01, 0.0, s, absent=1.0, lang_share=0.05).found
    assert decide(0.8, 0.09, 0.9, GateSettings(0.05, 0.3), absent=1.0).found  # the default never refuses so


def test_calibrate_finds_the_absent_threshold_that_separates():
    # margins and coverages overlap; only the absent share tells the two apart
    pos = [(True, 0.05 + i / 1000, 0.3, 0.1 * (i % 4), 1.0) for i in range(40)]
    neg = [(False, 0.05 + i / 1000, 0.3, 0.8 + 0.05 * (i % 4), 1.0) for i in range(40)]
    settings, stats = calibrate(pos + neg)
    assert settings.max_absent == pytest.approx(0.8, abs=1e-5)
    assert stats.abstained == 40 and stats.false_refusals == 0
    # where the language is rare in the corpus the absent share is not trusted
    foreign = [(False, *n[1:4], 0.05) for n in neg]
    assert calibrate(pos + foreign)[1].abstained < 40


def test_pseudo_questions_take_noise_of_their_own_language():
    english = "Employees may work from home up to two days per week with the approval of their manager."
    noise = ["ワールドカップで優勝した国はどこですか", "What is the capital of Australia?"]
    for seed in range(20):
        (q,) = autocal.pseudo_questions([english], seed=seed, noise=noise)
        assert q.isascii(), q  # never a whole Japanese negative spliced in as one "word"


def test_the_calibration_records_the_corpus_languages(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([RULES])
        langs = json.loads(k.store.meta("corpus_langs") or "{}")
        assert langs.get("ja", 0) > 0 and langs.get("en", 0) > 0
        assert 0 < k.searcher.lang_share("en") < 1 and k.searcher.lang_share("other") == 1.0
        g = k.search("Who won the 2018 FIFA World Cup?").gate
        assert g.content >= 3 and g.absent > 0.5


def test_the_absent_word_cut_is_the_lowest_the_pseudo_questions_allow_and_coverage_has_a_floor():
    # 100 pseudo-questions: 3 with 70 % of their words absent (swapped words), the rest none absent
    positive = [("ja", 0.1, 0.5, 0.7 if i < 3 else 0.0, 1.0, 0.9) for i in range(100)]
    assert autocal.absent_cut([autocal._parse(p) for p in positive], 0.05) == 0.5
    assert autocal.absent_cut([autocal._parse(p) for p in positive], 0.02) == 0.8
    assert autocal.absent_cut([], 0.05) == 1.01
    negative = [("en", 0.02, 0.0, 1.0, 1.0, 0.1) for _ in range(40)]  # a small index: no negative holds a word
    settings, _ = autocal.fit(positive, negative, chunks=3)
    assert settings.min_coverage == autocal.MIN_COVERAGE


def test_the_names_a_question_mentions():
    assert names("What is the capital of France?") == [("France", ["franc"])]
    assert names("Who won the 2018 FIFA World Cup?") == [("FIFA World Cup", ["fifa", "world", "cup"])]
    assert [w for w, _ in names("徳川家康が江戸幕府を開いたのはいつ？")] == ["徳川家康", "江戸"]
    assert [w for w, _ in names("Is New York bigger than Paris?")] == ["New York", "Paris"]
    assert [w for w, _ in names("2018年のFIFAワールドカップで優勝したのは？")] == ["FIFA"]
    # first words, weekdays, months and languages are not names; title case says nothing
    assert names("Can I work from home on Monday in March?") == []
    assert names("How many days of paid leave do I get?") == []
    assert names("Is the handbook available in English?") == []
    assert names("What Is The Leave Policy") == []
    assert names("社員食堂のメニューは？") == []


def test_names_no_document_mentions_refuse_and_are_named():
    assert absent_names([("France", ["franc"]), ("Kotae", ["kota"])], {"kota": 3}) == ["France"]
    assert absent_names([("New York", ["new", "york"])], {"new": 2}) == []  # a run one word of which is held
    assert absent_names([("東京", ["東京"])], {}, held=lambda tokens: True) == []  # held through a synonym
    s = GateSettings(min_margin=0.05, min_coverage=0.3)
    refused = decide(0.9, 0.2, 0.9, s, names=["France"])
    assert not refused.found and refused.absent_names == ("France",) and "France" in refused.reason


def test_a_question_about_something_the_documents_never_name_is_refused(tmp_path):
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([RULES])
        gate = k.search("フランスの首都はどこですか").gate
        assert not gate.found and gate.absent_names == ("フランス",)
        assert gate.explanation.startswith("資料には「フランス」")
        assert not k.search("賃金の支払日はいつですか").gate.absent_names
        answer = k.ask("What is the capital of France?")  # the answer says what the documents lack
        assert not answer.found_in_docs and answer.missing == ("France",)


def test_a_name_held_in_the_corpus_other_language_is_not_absent(tmp_path):
    records = [Record("ja", "当社の休日は土曜日、日曜日及び祝日とする。年末年始は12月29日から1月3日までとする。", "休日"),
               Record("en", "Our office in France closes on French public holidays.", "France office")]
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index_records(records, "mixed")
        k.self_calibrate(force=True)
        assert not k.search("フランスの祝日は？").gate.absent_names  # France, through the lexicon
        assert k.search("ドイツの祝日は？").gate.absent_names == ("ドイツ",)  # Germany: in neither language


def test_the_words_of_a_file_name_are_held_by_the_documents(tmp_path, monkeypatch):
    assert file_tokens(["data/vodafone.xlsx", r"C:\\share\\stanley-cups_2023.csv", "就業規則.pdf"]) >= {
        "vodafon", "stanley", "cup", "2023", "就業", "規則"}
    assert not file_tokens(["data/vodafone.xlsx"]) & {"data", "xlsx"}  # folders and extensions are not its name
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vodafone.csv").write_text("Topic,Period,Page\nGuidance rates,FY 23/24,14\nMobile ARPU,Q1 FY24,13\n",
                                       encoding="utf-8")
    (docs / "rules.md").write_text("# Leave\nEmployees get 20 days of annual leave per year.\n", encoding="utf-8")
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([str(docs)])
        question = "For which period are the Vodafone guidance rates given?"
        gate = k.search(question).gate
        assert not gate.absent_names and "Vodafone" not in gate.explanation  # its file is named so
        assert k.search("What are the Samsung guidance rates?").gate.absent_names == ("Samsung",)
        monkeypatch.setattr(searcher_module, "FILE_NAMES", False)
        assert k.search(question).gate.absent_names == ("Vodafone",)


def test_a_romanised_japanese_name_is_not_told_absent_where_the_documents_hold_japanese(tmp_path, monkeypatch):
    assert all(map(romanised_japanese, ["Miyazawa Kenji", "Nihonbashi", "Okazaki", "Tanaka Ichiro"]))
    assert not any(map(romanised_japanese, ["FIFA World Cup", "Canada", "Hamas", "Iran", "AAA", "Turing", "Russians"]))
    records = [Record("ja", "序　宮沢賢治　大正十三年一月廿日", "序"),
               Record("en", "Our office in France closes on French public holidays.", "France office")]
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index_records(records, "mixed")
        k.self_calibrate(force=True)
        gate = k.search("When was the preface by Miyazawa Kenji dated?").gate
        assert not gate.absent_names and "Miyazawa" not in gate.explanation  # maybe 宮沢賢治
        assert gate.absent == 0.5  # "preface" and "dated" only: the name is not counted among the absent words
        assert k.search("Who won the 2018 FIFA World Cup?").gate.absent_names == ("FIFA World Cup",)
        monkeypatch.setattr(searcher_module, "ROMANISED_NAMES", False)
        before = k.search("When was the preface by Miyazawa Kenji dated?").gate
        assert before.absent_names == ("Miyazawa Kenji",) and before.absent > gate.absent


def _mostly_english() -> tuple[list[Record], list[Record]]:
    """Twenty English records on wages and one Japanese record on holidays: Japanese is a small part of the corpus."""
    english = [Record(f"en{i}", f"Wages are paid on the 25th of each month. Office {i} closes at six on Fridays.",
                      f"Office {i}") for i in range(20)]
    return english, [Record("ja", "当社の休日は土曜日、日曜日及び祝日とする。", "休日"), *english]


def test_a_japanese_question_over_mostly_english_documents_has_its_words_looked_for_in_both(tmp_path, monkeypatch):
    _, records = _mostly_english()
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index_records(records, "mixed")
        k.self_calibrate(force=True)
        assert 0.02 <= k.searcher.lang_share("ja") < 0.2  # Japanese is a small part of this corpus
        lost = k.search("光合成の仕組みを教えて").gate  # in no document, in either language
        assert lost.absent > 0.6 and lost.lang_share > 0.9  # looked for across the whole corpus
        wages = k.search("賃金の支払日は？").gate  # 賃金: "wages" in the English documents
        assert wages.absent < lost.absent and wages.lang_share > 0.9
        refuse_absent = GateSettings(min_margin=-1.0, max_absent=0.6)  # only the absent-word rule can refuse
        assert not decide(lost.similarity, lost.margin, lost.coverage, refuse_absent, absent=lost.absent,
                          lang_share=lost.lang_share).found
        monkeypatch.setattr(searcher_module, "ABSENT_TRANSLATED", False)  # before: looked for in Japanese only
        before = k.search("光合成の仕組みを教えて").gate
        assert before.lang_share < 0.2 and decide(before.similarity, before.margin, before.coverage, refuse_absent,
                                                  absent=before.absent, lang_share=before.lang_share).found


def test_the_gate_margin_is_taken_within_the_top_chunk_s_language(tmp_path, monkeypatch):
    english = [Record(f"en{i}", f"Wages are paid on the 25th of each month. Office {i} closes at six on Fridays.",
                      f"Office {i}") for i in range(20)]
    japanese = [Record("ja1", "当社の休日は土曜日、日曜日及び祝日とする。", "休日"),
                Record("ja2", "社員食堂の営業は11時から14時までとする。", "食堂"),
                Record("ja3", "通勤手当は月額5万円を上限として支給する。", "通勤")]
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index_records([*japanese, *english], "mixed")
        k.self_calibrate(force=True)
        q = "社員食堂の営業時間は？"
        within = k.search(q, mode="dense").gate
        _, stats = k.searcher.language_stats()
        top = k.search(q, mode="dense").hits[0]
        assert "食堂" in top.chunk.text and stats is not None
        expected = within.similarity - float(k.embedder.query(q) @ stats.mean["ja"])
        assert within.margin == pytest.approx(expected, abs=1e-4)
        monkeypatch.setattr(searcher_module, "LANGUAGE_MARGIN", False)
        over_all = k.search(q, mode="dense").gate
        # over all chunks the English ones pull the mean down: the Japanese question's margin was inflated
        assert over_all.margin > within.margin and over_all.similarity == within.similarity


def test_a_refusal_near_a_passage_in_the_other_language_says_to_ask_in_it(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "stanley-cups.csv").write_text("Team,Stanley Cups\nCanadiens,24\nMaple Leafs,13\nRed Wings,11\n",
                                          encoding="utf-8")
    for i, text in enumerate(["Kilns fire stoneware at high heat.", "Glazes use feldspar and silica.",
                              "Clay shrinks as it dries.", "Throwing needs a centred wheel."]):
        (docs / f"pottery{i}.txt").write_text(text + "\n", encoding="utf-8")
    (docs / "memo.txt").write_text("窯の温度は毎朝記録する。\n", encoding="utf-8")  # a little Japanese
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), Settings()) as k:
        k.index([str(docs)])
        # team and cup: the CSV, the closest passage, holds both in English, so the gate counts them as held
        assert k.search("チームのカップは？").gate.found
        monkeypatch.setattr(searcher_module, "GATE_TRANSLATIONS_OTHER_TOP", False)  # as before: refused, with a hint
        gate = k.search("チームのカップは？").gate
        assert not gate.found
        assert "英語で質問すると見つかることがあります" in gate.explanation and "の資料（" in gate.explanation


def test_a_translation_counts_as_held_only_in_the_closest_passages(tmp_path, monkeypatch):
    english, records = _mostly_english()
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index_records(records, "mixed")
        s = k.searcher
        tokens = analyze("賃金の支払日は？")
        df, _ = s.store.document_frequencies(tokens)
        anywhere = s._held_in_other_language("ja", 0.05, tokens, df)  # 賃金: "wages" somewhere in the corpus
        near_wages = s._held_in_other_language("ja", 0.05, tokens, df, [analyze(english[0].text)])
        near_none = s._held_in_other_language("ja", 0.05, tokens, df, [analyze("Office 3 closes at six.")])
        assert anywhere is not None and near_wages is not None and near_none is not None
        assert 0 in anywhere and 0 in near_wages and 0 not in near_none  # 賃金 is tokens[0]
        # the gate looks in the passages it found (the three it reads for coverage), not in the whole corpus
        monkeypatch.setattr(searcher_module, "ABSENT_TRANSLATED_NEAR", False)
        assert k.search("賃金の支払日は？").gate.absent <= 0.5
