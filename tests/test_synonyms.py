"""Synonym expansion: the bundled Sudachi groups, matching in analysed tokens, and the keyword search."""
import pytest

from kotae.config import IndexSettings, SearchSettings
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.search.fusion import add_weighted
from kotae.search.gate import absent_share
from kotae.search.synonyms import (
    Synonyms,
    bundled,
    expansion_phrases,
    group_terms,
    matches,
    parse,
    with_group_terms,
)
from kotae.store import open_store

# group 1: overtime (所定外労働 has flag 1: found in documents, never expands a question)
ROWS = parse(["1\t0\t残業", "1\t0\t時間 外 労働", "1\t1\t所定 外 労働", "2\t0\t労働", "3\t0\t休日 出勤",
              "3\t0\t休日 労働", "4\t0\t休日 出勤 手当", "5\t2\t給料", "6\t0\tsalari", "6\t0\t賃金", "7\t0\tの"])


def test_parse_and_flags():
    syn = Synonyms.from_rows(ROWS)
    assert syn.entries[("残業",)] == ((1, True),)
    assert syn.entries[("所定", "外", "労働")] == ((1, False),)
    assert ("給料",) not in syn.entries  # flag 2: never used
    assert ("の",) not in syn.entries  # a one-kana entry would match particles
    assert ("時間", "外") in syn.prefixes and ("残業",) not in syn.prefixes


def test_matches_keep_long_entries_and_drop_covered_single_tokens():
    syn = Synonyms.from_rows(ROWS)
    assert matches(["時間", "外", "労働", "賃金"], syn, query=False) == [(0, 3, 1), (3, 4, 6)]  # not 労働 alone
    assert matches(["休日", "出勤", "手当"], syn, query=False) == [(0, 2, 3), (0, 3, 4)]
    assert matches(["所定", "外", "労働"], syn, query=False) == [(0, 3, 1)]
    assert matches(["所定", "外", "労働"], syn, query=True) == []  # flag 1 starts no expansion
    assert matches(["労働"], syn, query=True) == [(0, 1, 2)]


def test_group_terms_and_phrases():
    syn = Synonyms.from_rows(ROWS)
    assert group_terms(["残業", "賃金"], syn, query=True) == ["syn1", "syn6"]
    assert expansion_phrases(["残業"], syn) == ["時間 外 労働", "所定 外 労働"]
    assert expansion_phrases(["salari"], syn) == ["賃金"]  # English question → Japanese words
    assert with_group_terms("時間 外 労働 の 割増", syn) == "時間 外 労働 の 割増 syn1"
    assert with_group_terms("割増", syn) == "割増"


def test_bundled_dictionary_knows_the_issue_examples():
    syn = bundled()
    q = group_terms(analyze("残業と給料"), syn, query=True)
    assert set(group_terms(analyze("時間外労働に対する賃金"), syn, query=False)) & set(q) >= {"syn1464", "syn312"}
    assert "syn986" in group_terms(analyze("休日労働"), syn, query=False)  # 休日出勤 ↔ 休日労働
    assert "syn312" in group_terms(analyze("What is the salary?"), syn, query=True)
    assert "賃金" in expansion_phrases(analyze("salary"), syn)


def test_add_weighted_sums_scores():
    got = add_weighted([(1, 2.0), (2, 1.0)], [(2, 4.0), (3, 1.0)], 0.5, 10)
    assert got == [(2, 3.0), (1, 2.0), (3, 0.5)]
    assert add_weighted([(1, 2.0)], [(2, 4.0), (3, 1.0)], 0.5, 2) == [(1, 2.0), (2, 2.0)]


RULES = "# 賃金\n\n時間外労働をさせた場合は、割増賃金を支払う。\n\n# 休暇\n\n年次有給休暇は10日とする。\n"


@pytest.mark.parametrize("index_side", [True, False])
def test_colloquial_and_english_questions_find_the_rule(tmp_path, fake_embedder, index_side):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    index_paths([str(tmp_path / "docs")], store, fake_embedder, IndexSettings(synonym_terms=index_side))
    assert store.meta("synonym_terms") == ("1" if index_side else "0")
    on, off = Searcher(store, fake_embedder), Searcher(store, fake_embedder, SearchSettings(synonyms=False))
    for q, word in (("残業したらどうなる", "時間外労働"), ("How is the salary paid?", "賃金"),
                    ("有休って取れる？", "年次有給休暇")):  # the last through kotae's workplace groups
        found = [h.chunk.text for h in on.search(q, mode="keyword").hits]
        assert found and word in found[0], q
        assert off.search(q, mode="keyword").hits == [], q
    store.close()


def test_an_index_made_before_synonyms_keeps_its_keywords(tmp_path, fake_embedder):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text(RULES, encoding="utf-8")
    store = open_store(str(tmp_path / "idx"))
    index_paths([str(tmp_path / "docs")], store, fake_embedder, IndexSettings(synonym_terms=False))
    store.set_meta("synonym_terms", "")  # as an older kotae left it: no record
    store._db.execute("DELETE FROM meta WHERE key='synonym_terms'")
    (tmp_path / "docs" / "more.md").write_text("# 休日\n\n休日労働は月2回まで。\n", encoding="utf-8")
    index_paths([str(tmp_path / "docs")], store, fake_embedder, IndexSettings())
    assert store.meta("synonym_terms") == "0"
    hits = Searcher(store, fake_embedder).search("休日出勤", mode="keyword").hits  # found through phrases
    assert hits and "休日労働" in hits[0].chunk.text
    store.close()


def test_on_demand_lookups_give_the_bundled_answers(tmp_path, monkeypatch):
    from kotae.search.synonyms import on_demand

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    on_demand.cache_clear()
    try:
        lazy, full = on_demand(), bundled()
        assert lazy is not full and list((tmp_path / "cache" / "kotae").glob("synonyms-*.sqlite3"))
        for q in ("時間外労働の割増率は", "給料はいつ支払われますか", "How do I file an expense claim?",
                  "休日出勤手当はありますか", "育休は取れる", "salary and wage"):
            toks = analyze(q)
            assert matches(toks, lazy, query=True) == matches(toks, full, query=True)
            assert matches(toks, lazy, query=False) == matches(toks, full, query=False)
            assert group_terms(toks, lazy, query=True) == group_terms(toks, full, query=True)
            assert expansion_phrases(toks, lazy) == expansion_phrases(toks, full)
    finally:
        on_demand.cache_clear()


def test_workplace_groups_join_colloquial_formal_and_english_words():
    from kotae.search.synonyms import WORKPLACE_BASE, workplace_rows
    rows = workplace_rows(["# a comment", "解雇, クビ, dismissal", "", "副業, バイト, side job"])
    assert {g for g, _, _ in rows} == {WORKPLACE_BASE + 1, WORKPLACE_BASE + 2}  # comments and blanks skipped
    assert (WORKPLACE_BASE + 2, 0, tuple(analyze("side job"))) in rows  # every entry expands (flag 0)
    from kotae.search.synonyms import WORKPLACE_FILE
    with open(WORKPLACE_FILE, encoding="utf-8") as f:  # the shipped groups
        syn = Synonyms.from_rows(workplace_rows(f.readlines()))
    found = {g for _, _, g in matches(analyze("クビになるのはどんな場合？"), syn, query=True)}
    assert any(("解雇",) in syn.groups[g] for g in found)
    found = {g for _, _, g in matches(analyze("Can I have a side job?"), syn, query=True)}
    assert any(("副業",) in syn.groups[g] for g in found)


def test_the_workplace_groups_are_searched_by_default_and_the_sentence_choice_keeps_sudachis():
    from kotae.search.synonyms import WORKPLACE_BASE, on_demand
    toks = analyze("有休は何日もらえる？")
    assert any(g > WORKPLACE_BASE for _, _, g in matches(toks, bundled(), query=True))
    assert any(g > WORKPLACE_BASE for _, _, g in matches(toks, on_demand(), query=True))
    assert all(g < WORKPLACE_BASE for _, _, g in matches(toks, bundled(workplace=False), query=True))
    assert all(g < WORKPLACE_BASE for _, _, g in matches(toks, on_demand(workplace=False), query=True))


def test_a_question_word_a_passage_holds_as_its_synonym_counts_as_held():
    from kotae.search.synonyms import held_through_groups
    syn = Synonyms.from_rows(ROWS)
    q = analyze("残業の割増率")
    assert held_through_groups(q, analyze("時間外労働の割増率は25%"), syn) == ["残業"]
    assert held_through_groups(q, analyze("残業の割増率"), syn) == []  # held as itself
    assert held_through_groups(q, analyze("休日労働の割増率"), syn) == []  # another group


def test_one_token_entries_inside_a_longer_entry_count_for_what_the_documents_hold():
    syn = bundled()
    toks = analyze("給与から天引きされるもの")  # 給与 天引き: also the entry 給与天引き, whose group the rules may lack
    longest = matches(toks, syn, query=True)
    every = matches(toks, syn, query=True, every=True)
    assert [(a, b) for a, b, _ in longest] == [(0, 2)]
    assert {(0, 1), (1, 2)} <= {(a, b) for a, b, _ in every} and set(longest) <= set(every)
    # with the singles, 給与 (in 賃金's group) and 天引き (in 控除's) are held where the rules say 賃金 and 控除
    spans = [(a, b, g in {g for _, _, g in matches(analyze("賃金から控除する"), syn, query=False)}) for a, b, g in every]
    assert absent_share(toks, {}, spans)[0] == 0.0
