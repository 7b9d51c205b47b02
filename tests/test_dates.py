"""Dates a question names: found in English and Japanese spellings, and the candidates naming them placed first."""
import numpy as np

from kotae.search.dates import asked, first, holds, mentions


def test_days_and_months_in_every_spelling_are_one_date():
    day = {"2023-03-31", "2023-03", "2023-Q1"}  # a day names its month and its quarter
    for text in ("total assets at March 31, 2023", "Three Months Ended Mar. 31, 2023: $9", "31 March 2023",
                 "2023-03-31", "2023/3/31", "２０２３年３月３１日現在", "令和5年3月31日", "March 31st 2023"):
        assert mentions(text) == day, text
    assert mentions("平成元年1月8日") == {"1989-01-08", "1989-01", "1989-Q1"}
    assert mentions("the March 2023 report, 2024年4月の売上, 令和6年4月") == {"2023-03", "2024-04", "2023-Q1", "2024-Q2"}
    assert mentions("Sept. 30, 2023 and October 1, 2022") == {"2023-09-30", "2023-09", "2022-10-01", "2022-10",
                                                                "2023-Q3", "2022-Q4"}


def test_what_is_no_date():
    for text in ("Form 1040 line 13", "2023年度の予算", "in 2023", "Table 3-5", "第37条", "May we help? 2023 was",
                 "13/45/2023", "2023年13月1日", "February 45, 2023"):
        assert not mentions(text), text


def test_a_passage_names_a_day_without_its_year_in_the_year_it_named_last():
    # Wikipedia writes 「2006年の国政選挙では、4月と10月に…」 and 「2020年3月9日の…6月28日には…」
    assert mentions("2006年の国政選挙では、4月と10月に", in_context=True) == {"2006-04", "2006-10", "2006-Q2", "2006-Q4"}
    assert {"2020-06-28", "2020-06"} <= mentions("2020年3月9日の暴落以来…6月28日には", in_context=True)
    assert mentions("In 2019 the board met on June 28.", in_context=True) == {"2019-06-28", "2019-06", "2019-Q2"}
    assert mentions("4月1日から施行する。", in_context=True) == frozenset()  # no year named before it
    assert mentions("In 2019 you may 3 times", in_context=True) == frozenset()  # "may" is no month
    assert mentions("2006年の選挙では、4月と10月に") == frozenset()  # a question's dates are named whole


def test_a_question_asks_for_its_finest_dates_and_a_passage_must_name_them_all():
    assert asked("What were total assets at March 31, 2023?") == {"2023-03-31"}
    assert asked("2023年4月の売上は？") == {"2023-04"}
    assert asked("How many vacation days do I get?") == frozenset()
    when = asked("between March 31, 2023 and June 30, 2023")
    assert holds(mentions("March 31, 2023 | June 30, 2023"), when)
    assert not holds(mentions("March 31, 2023 | June 30, 2022"), when)
    assert holds(mentions("Three Months Ended April 30, 2023"), asked("in April 2023"))  # a day names its month


def test_calendar_quarters_and_fiscal_ones():
    for text in ("Q3 2023", "Q3 of 2023", "2023 Q3", "2023_Q3_AMZN.pdf", "3Q23", "third quarter of 2023",
                 "the 3rd quarter 2023", "2023年第3四半期", "令和5年第3四半期"):
        assert asked(text) == {"2023-Q3"}, text
    # a fiscal quarter's months depend on the company: none is asked
    for text in ("the first quarter of fiscal 2024", "Q1 fiscal 2024", "FY2024 Q1", "fiscal 2024 Q1", "2023年度第1四半期"):
        assert asked(text) == frozenset(), text
    # a day or month asked is finer than its quarter; a passage names a quarter by a day in it or by name
    assert asked("in Q1 2023 (quarter ended March 31, 2023)") == {"2023-03-31"}
    assert holds(mentions("Three Months Ended September 30, 2023"), asked("in Q3 2023"))
    assert holds(mentions("Q3 2023 vs. Q3 2022: revenue grew"), asked("third quarter of 2023"))
    assert not holds(mentions("Three Months Ended June 30, 2023"), asked("in Q3 2023"))


def test_first_keeps_each_group_in_order():
    ranked = [(1, 3.0), (2, 2.5), (3, 2.0), (4, 1.0)]
    assert first(ranked, {2, 4}) == [(2, 2.5), (4, 1.0), (1, 3.0), (3, 2.0)]
    assert first(ranked, set()) == ranked


def test_searcher_places_the_quarter_the_question_names_first(tmp_path, fake_embedder):
    from kotae.config import SearchSettings
    from kotae.search import Searcher
    from kotae.search.analyze import analyze
    from kotae.store import open_store
    from kotae.types import Chunk, DocumentInfo

    # two filings that read the same but for their dates; dense ranks the older one first
    texts = ["Total assets | March 31, 2022: $420,541 | December 31, 2021: $420,549",
             "Total assets | March 31, 2023: $464,378 | December 31, 2022: $462,675"]
    store = open_store(str(tmp_path / "idx"))
    store.bind_model("m@1/4")
    for i, text in enumerate(texts):
        info = DocumentInfo(id=f"d{i}", path=f"/d/q{i}.pdf", file=f"q{i}.pdf", kind="pdf", sha256=f"h{i}", pages=1,
                            chunks=1, lang="en", indexed_at="2026-01-01T00:00:00+00:00")
        chunk = Chunk(id=f"c{i}", doc_id=f"d{i}", file=f"q{i}.pdf", page=1, heading=("Balance Sheets",), text=text,
                      start=0, end=len(text), lang="en", ordinal=0)
        vec = np.asarray([[1.0, 0.1 * i, 0, 0]], np.float32)
        store.write_document(info, [text], [chunk], [f"h{i}"], vec / np.linalg.norm(vec), [" ".join(analyze(text))])
    q = np.array([1, 0, 0, 0], np.float32)
    question = "What were the total assets at March 31, 2023?"
    off = Searcher(store, fake_embedder, SearchSettings(dates_first=False)).search(question, mode="dense", vector=q)
    on = Searcher(store, fake_embedder, SearchSettings(dates_first=True))
    assert [h.chunk.id for h in off.hits] == ["c0", "c1"]
    assert [h.chunk.id for h in on.search(question, mode="dense", vector=q).hits] == ["c1", "c0"]
    undated = on.search("What were the total assets?", mode="dense", vector=q)
    assert [h.chunk.id for h in undated.hits] == ["c0", "c1"]  # no date asked: the ranking stands
    store.close()
