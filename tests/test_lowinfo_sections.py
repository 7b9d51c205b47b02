"""Low-information chunks weighed down in dense ranking; tables of contents placed behind the passages; a section
continued on the next page found with it."""
import numpy as np

from kotae.search.lowinfo import asks_page, behind, demote, information, navigation, signals
from kotae.search.sections import continues, with_neighbours
from kotae.types import Chunk

PROSE_JA = ("賃金は毎月末日に締め切り、翌月25日に支払う。ただし、支払日が休日に当たるときは、その前日に支払う。"
            "時間外労働の割増賃金は25%とする。")
PROSE_EN = "Wages are paid on the 25th of the following month. If that day is a holiday, they are paid the day before."
ONE_CHAR_TABLE = "\n".join("勤続年数付与日数６か月１年６か月２年６か月３年６か月以上１０日１１日１２日１４日")
CALENDAR = "日 月 火 水 木 金 土\n" + "\n".join(" ".join(str(d) for d in range(w * 7 + 1, min(31, w * 7 + 7) + 1))
                                          for w in range(5))
NUMBERS = "1,234 5,678 9,012\n3,456 7,890 1,234\n5,678 9,012 3,456\n12.5 13.7 14.2 15.9\n100 200 300 400"
TABLE_ROWS = "勤続年数 付与日数\n6か月 10日\n1年6か月 11日\n2年6か月 12日\n3年6か月 14日\n4年6か月 16日\n6年6か月以上 20日"


def test_prose_and_table_rows_carry_information():
    for text in (PROSE_JA, PROSE_EN, TABLE_ROWS, "SSID: SAMPLE-STAFF"):
        assert information(text) == 1.0, text


def test_one_character_lines_calendars_and_number_blocks_do_not():
    assert signals(ONE_CHAR_TABLE)["chars_per_line"] == 1.0
    assert information(ONE_CHAR_TABLE) < 0.2
    assert signals(CALENDAR)["digit_share"] > 0.8
    assert information(CALENDAR) == 0.0
    assert information(NUMBERS) == 0.0


def test_demote_reorders_but_keeps_the_similarities():
    ranked = [(1, 0.90), (2, 0.88), (3, 0.80)]
    info = {1: 0.0, 2: 1.0, 3: 1.0}
    assert demote(ranked, info, 0.05) == [(2, 0.88), (1, 0.90), (3, 0.80)]
    assert demote(ranked, info, 0.0) == ranked
    assert demote(ranked, {}, 0.05) == ranked  # unknown chunks count as prose


def _chunk(i, page, heading=("第6章 賃金", "第32条"), doc="d"):
    return Chunk(id=f"c{i}", doc_id=doc, file="rules.pdf", page=page, heading=heading, text=f"t{i}", start=0,
                 end=2, lang="ja", ordinal=i)


def test_continues_needs_same_heading_adjacent_page_and_consecutive_chunk():
    a = _chunk(3, 7)
    assert continues(a, _chunk(4, 8)) and continues(a, _chunk(2, 6))
    assert not continues(a, _chunk(4, 7))  # same page: an ordinary neighbour
    assert not continues(a, _chunk(5, 8))  # not the next chunk
    assert not continues(a, _chunk(4, 8, heading=("第6章 賃金", "第33条")))
    assert not continues(a, _chunk(4, 8, doc="e"))
    assert not continues(_chunk(3, 7, heading=()), _chunk(4, 8, heading=()))  # no heading: no section


def test_with_neighbours_puts_the_continuation_behind_its_leader():
    chunks = {10: _chunk(3, 7), 11: _chunk(4, 8), 20: _chunk(9, 2, heading=("x",)), 21: _chunk(10, 3, heading=("x",))}
    assert with_neighbours([10, 20, 30, 11], chunks, 1) == [10, 11, 20, 30]
    assert with_neighbours([10, 20, 30], chunks, 2) == [10, 11, 20, 21, 30]
    assert with_neighbours([10, 20], chunks, 0) == [10, 20]
    assert np.array_equal(with_neighbours([11, 10], chunks, 1), [11, 10])  # already there: kept once


def _store(tmp_path, texts, pages, headings, vecs):
    from kotae.store import open_store
    from kotae.types import DocumentInfo

    store = open_store(str(tmp_path / "idx"))
    store.bind_model("m@1/4")
    info = DocumentInfo(id="d", path="/d/rules.pdf", file="rules.pdf", kind="pdf", sha256="h", pages=max(pages),
                        chunks=len(texts), lang="ja", indexed_at="2026-01-01T00:00:00+00:00")
    chunks = [Chunk(id=f"c{i}", doc_id="d", file="rules.pdf", page=p, heading=h, text=t, start=0, end=len(t),
                    lang="ja", ordinal=i) for i, (t, p, h) in enumerate(zip(texts, pages, headings, strict=True))]
    from kotae.search.analyze import analyze

    vecs = np.asarray(vecs, np.float32)
    store.write_document(info, [""] * max(pages), chunks, [f"h{i}" for i in range(len(texts))],
                         vecs / np.linalg.norm(vecs, axis=1, keepdims=True), [" ".join(analyze(t)) for t in texts])
    return store


def test_searcher_weighs_a_calendar_down_in_dense_ranking(tmp_path, fake_embedder):
    from kotae.config import SearchSettings
    from kotae.search import Searcher

    store = _store(tmp_path, [CALENDAR, PROSE_JA], [1, 2], [(), ()], [[1, 0, 0, 0], [0.9, 0.1, 0, 0]])
    q = np.array([1, 0.05, 0, 0], np.float32)
    q /= np.linalg.norm(q)
    plain = Searcher(store, fake_embedder, SearchSettings(low_info_penalty=0.0)).search("x", mode="dense", vector=q)
    down = Searcher(store, fake_embedder, SearchSettings(low_info_penalty=0.05)).search("x", mode="dense", vector=q)
    assert [h.chunk.id for h in plain.hits] == ["c0", "c1"]
    assert [h.chunk.id for h in down.hits] == ["c1", "c0"]
    assert down.gate.similarity == plain.gate.similarity  # the gate sees the raw top similarity
    store.close()


def test_searcher_brings_the_section_continued_on_the_next_page(tmp_path, fake_embedder):
    from kotae.config import SearchSettings
    from kotae.search import Searcher

    art = ("第6章 賃金", "第32条（賃金の支払日）")
    texts = ["賃金は翌月25日に支払う。", "ただし休日に当たるときは前日とする。", "年次有給休暇は10日とする。",
             "休暇の申請は前日までに行う。"]
    store = _store(tmp_path, texts, [7, 8, 8, 9], [art, art, ("第7章 休暇",), ("第7章 休暇",)],
                   np.eye(4, dtype=np.float32))
    v = np.eye(4, dtype=np.float32)[3]
    off = Searcher(store, fake_embedder, SearchSettings(section_neighbours=0)).search("賃金の支払日", mode="keyword", vector=v)
    on = Searcher(store, fake_embedder, SearchSettings(section_neighbours=1)).search("賃金の支払日", mode="keyword", vector=v)
    assert [h.chunk.id for h in off.hits] == ["c0", "c2"]  # 日
    assert [(h.chunk.id, h.chunk.page) for h in on.hits] == [("c0", 7), ("c1", 8), ("c2", 8)]  # own pages
    store.close()


CONTENTS_EN = ("Notices . . . . . . . . . . . . . . . . vii\nTrademarks . . . . . . . . . . . . viii\n"
               "3.6.5 Defining and creating column masks . . . . . . 28\nAuthors. . . . . . . . . . . . . . xi")
CONTENTS_JA = "第1章　総則・・・・・・・・1\n第2章　人事・・・・・・・・3\n第6章　賃金…………12\n附則……………30"
CONTENTS_ROWS = ("Item 1. | Financial Statements | Page: 1\nItem 2. | Management's Discussion | Page: 14\n"
                 "Item 3. | Market Risk | Page: 19")
WORKSHEET = ("1. Enter the total pension or annuity payments received in 2007 .............. 1.\n"
             "2. Enter your cost in the plan at the annuity starting date ...... 2.\n"
             "Otherwise, go to line 3 .....\n3. Divide line 2 by the number ...... 3.")


def test_navigation_finds_contents_and_indexes_not_worksheets_or_prose():
    for text in (CONTENTS_EN, CONTENTS_JA, CONTENTS_ROWS):
        assert navigation(text), text
    assert navigation("Annuities ............... 13, 29\nEstimated tax,\nindividuals", ("Index",))  # under its heading
    for text in (WORKSHEET, PROSE_JA, PROSE_EN, TABLE_ROWS, "Wait... what? ... 12"):
        assert not navigation(text), text
    assert not navigation(PROSE_EN, ("Contents",))  # a heading alone is not enough
    # hostile lines: a pattern that read the whole line took seconds on these (it reads the line's end)
    assert not navigation("." * 20000) and not navigation("…" * 20000, ("Index",))
    assert navigation("Title " + "x" * 500 + " . . . . 12\nNext . . . . 13\nLast . . . . 14")


def test_asks_page():
    assert asks_page("モバイルARPUは何ページに載ってる？") and asks_page("Which page covers dividends?")
    assert not asks_page("What is a column mask?") and not asks_page("賃金の支払日は？")


def test_behind_keeps_each_group_in_order():
    ranked = [(1, 3.0), (2, 2.5), (3, 2.0), (4, 1.0)]
    assert behind(ranked, {1, 3}) == [(2, 2.5), (4, 1.0), (1, 3.0), (3, 2.0)]
    assert behind(ranked, set()) == ranked


def test_searcher_places_contents_behind_the_passage_unless_a_page_is_asked(tmp_path, fake_embedder):
    from kotae.config import SearchSettings
    from kotae.search import Searcher

    body = "A column mask is a database object that manifests a column value access control rule."
    store = _store(tmp_path, [CONTENTS_EN, body], [2, 10], [("Contents",), ("Column mask",)],
                   [[1, 0, 0, 0], [0.9, 0.1, 0, 0]])
    q = np.array([1, 0.05, 0, 0], np.float32)
    q /= np.linalg.norm(q)
    plain = Searcher(store, fake_embedder, SearchSettings(navigation_last=False)).search("column masks", mode="dense", vector=q)
    on = Searcher(store, fake_embedder, SearchSettings(navigation_last=True))
    assert [h.chunk.id for h in plain.hits] == ["c0", "c1"]
    assert [h.chunk.id for h in on.search("column masks", mode="dense", vector=q).hits] == ["c1", "c0"]
    assert [h.chunk.id for h in on.search("column masks: which page?", mode="dense", vector=q).hits] == ["c0", "c1"]
    store.close()
