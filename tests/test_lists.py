"""A list cut by a chunk (or page) boundary comes whole: the lead-in before a chunk that begins inside its items,
the items after a chunk that ends announcing them; a sentence cut at 。
inside brackets is rejoined; an identifier's digits are no quantity; deadline and person questions prefer
sentences that hold one."""
from __future__ import annotations

import importlib

import numpy as np

from kotae.answer import checks
from kotae.answer.complete import answer_part
from kotae.answer.extractive import candidates, pick, rows_only
from kotae.answer.lists import complete_lists

PAGE9 = ("第48条（解雇）\n従業員が次のいずれかに該当するときは、解雇することがある。\n"
         "（1）勤務状況が著しく不良で、改善の見込みがないとき\n（2）勤務成績又は業務能率が著しく不良で、他の職務にも転換できない等、\n")
PAGE10 = "就業に適さないとき\n（3）精神又は身体の障害により、業務に耐えられないと認められるとき\n2　前項の規定により解雇する。"


def test_a_chunk_that_begins_inside_a_list_gets_its_lead_in_from_the_page_before():
    prefix, suffix = complete_lists(PAGE9, PAGE10, "")
    assert prefix.startswith("従業員が次のいずれかに該当するときは") and suffix == ""
    texts = [c.text for c in candidates([prefix + PAGE10])]
    assert texts[0] == "従業員が次のいずれかに該当するときは、解雇することがある。"
    assert "（2）勤務成績又は業務能率が著しく不良で、他の職務にも転換できない等、就業に適さないとき" in texts  # mended
    chosen = pick(candidates([prefix + PAGE10]), np.array([1.0, 0.1, 0.1, 0.1, 0.1]))
    assert [c.text[:3] for c in chosen] == ["従業員", "（1）", "（2）", "（3）"]


def test_the_items_on_the_next_page_follow_a_list_that_ends_its_page():
    page10 = ("第52条（懲戒の事由）\n従業員が次のいずれかに該当するときは、譴責、減給又は出勤停止とする。\n"
              "（1）正当な理由なく無断欠勤が3日以上に及ぶとき\n（2）過失により会社に損害を与えたとき")
    page11 = "（3）第9条に定める遵守事項に違反したとき\n（4）第12条の規定に違反したとき\n第53条（懲戒の手続）\n"
    # what ask passes at a page edge: the rest of the page (nothing) and the next page, joined by a line break
    _, suffix = complete_lists("", page10, "" + "\n" + page11)
    assert suffix.strip().startswith("（3）") and suffix.endswith("違反したとき") and "第53条" not in suffix
    _, steps = complete_lists("", "To request remote work, do as follows:\n", "\n- Ask your manager.\n- Fill in RW-1.\n\nNext.")
    assert steps.split() == ["-", "Ask", "your", "manager.", "-", "Fill", "in", "RW-1."]  # Markdown's blank line


def test_a_chunk_that_ends_with_a_lead_in_gets_the_items_that_follow():
    text = "第37条（割増賃金）\n時間外労働に対しては、次の割増率により計算した割増賃金を支払う。\n"
    after = "（1）時間外労働 25%\n（2）休日労働 35%\n2　前項の計算の基礎は基本給とする。"
    prefix, suffix = complete_lists("", text, after)
    assert prefix == "" and suffix == "（1）時間外労働 25%\n（2）休日労働 35%"
    assert complete_lists("", "始業は午前9時とする。\n", after) == ("", "")  # nothing announced, nothing added
    assert complete_lists("前の条文。\n", "所定労働時間は8時間とする。", "") == ("", "")


def test_an_identifiers_digits_are_not_a_quantity():
    assert not checks.holds("code: EX-604 | category: Office furniture", "number")
    assert checks.holds("code: EX-601 | limit_jpy: 3000", "number")


def test_a_sentence_cut_at_a_full_stop_inside_brackets_is_rejoined():
    text = "会社は、毎年1回、検査（以下「ストレスチェック」という。）を行う。\n結果は秘密とする。"
    assert [c.text for c in candidates([text])] == ["会社は、毎年1回、検査（以下「ストレスチェック」という。）を行う。", "結果は秘密とする。"]


def test_deadline_and_person_questions_prefer_sentences_holding_one():
    cands = candidates(["受付時間は平日8時30分から17時30分までです。在宅勤務は前日の正午までに所属長に申請する。"])
    scores = np.array([0.86, 0.84])
    part = answer_part("在宅勤務はいつまでに申請しますか。", cands, scores, [], [[], []])
    assert part.chosen[0].text.startswith("在宅勤務は前日の正午までに")
    assert checks.asked_detail("Who approves it?") is not None and checks.asked_detail("休憩は何分？") is None
    assert checks.asked_type("How far into the evening can I work?") == "time"


def test_name_questions_prefer_sentences_holding_a_name():
    cands = candidates(["初回接続時は、従業員番号で認証してください。従業員用のSSIDは「SAMPLE-STAFF」です。"])
    part = answer_part("ネットにつなぐ無線の名前は？", cands, np.array([0.83, 0.79]), [], [[], []])
    assert "従業員用のSSIDは「SAMPLE-STAFF」です。" in [c.text for c in part.chosen]  # 0.79 alone would be left out
    assert checks.asked_detail("What is the name of the guest Wi-Fi?") is not None


def test_a_yes_no_question_about_leave_prefers_the_sentence_that_says_it_may_or_may_not_be_done():
    # ja-036: the rule that allows side work scored just under the one that lets the company restrict it
    cands = candidates([("会社は、従業員の副業が次の各号のいずれかに該当する場合には、これを制限する。"
                         "従業員は、勤務時間外において、他の会社等の業務に従事することができる。")])
    part = answer_part("よそでバイトしても大丈夫？", cands, np.array([0.93, 0.91]), [], [[], []])
    assert part.chosen[0].text.startswith("従業員は、勤務時間外において")
    for q in ("Am I allowed to have a side job?", "Can I take on a side gig?", "お歳暮をもらってもいいですか。",
              "秘密をしゃべったらダメ？"):
        assert checks.asked_detail(q) is checks.GRANTS, q
    # a question asking how much, how far or what is no yes/no question, whatever modal it holds
    for q in ("How much can we spend per head on a team dinner?", "How far into the evening can I keep working?",
              "何日休んでもいいですか。", "Can I talk to a therapist at no cost?"):
        assert checks.asked_detail(q) is not checks.GRANTS, q


def test_a_rule_that_grants_what_is_asked_answers_may_i():
    """uja-030: 「…必要な時間を与える。」 says the time off is given, as 「…することができる」 would say it is allowed; 「損害を
    与えたとき」 grants nothing."""
    cands = candidates([("住所の変更は、変更後14日以内に申請してください。"
                        "従業員が勤務時間中に選挙権を行使するため、あらかじめ申し出た場合は、それに必要な時間を与える。")])
    part = answer_part("投票に行くために仕事を抜けてもいいですか。", cands, np.array([0.90, 0.88]), [], [[], []])
    assert part.chosen[0].text.startswith("従業員が勤務時間中に")
    assert not checks.GRANTS.search("（3）過失により会社に損害を与えたとき")
    assert checks.GRANTS.search("Employees are entitled to ten days of sick leave.")


def test_a_question_about_what_something_is_calculated_from_prefers_the_sentence_naming_the_basis():
    """u3en-005: the sentence that says the premium is calculated came first; the one naming its basis answers."""
    cands = candidates([("時間外労働に対しては、次の割増率により計算した割増賃金を支払う。"
                        "割増賃金の算定の基礎となる賃金額は、基本給及び役職手当の合計額を所定労働時間数で除した額とする。")])
    part = answer_part("What pay is the overtime premium calculated from?", cands, np.array([0.92, 0.90]), [], [[], []])
    assert part.chosen[0].text.startswith("割増賃金の算定の基礎")
    assert checks.asked_detail("残業代は何を基準に計算しますか。") is checks.BASIS[1]
    assert checks.asked_detail("割増賃金はいくらですか。") is None


def test_how_much_is_no_list_question_and_asking_phrases_earn_no_keyword_credit():
    assert not checks.asks_list("暗証番号はどれくらいの間隔で変えますか。")
    assert checks.asks_list("どれを選べばいいですか。") and checks.asks_list("クビになるのはどんな場合？")
    assert "場合" not in checks.without_asking("クビになるのはどんな場合？")
    assert "名前" not in checks.without_asking("無線の名前は？")
    assert checks.asks_list("給与から天引きされるものは何ですか。") and not checks.asks_list("給与はいつ支払われますか。")
    assert checks.without_asking("名前の変更手続きは？") == "名前の変更手続きは?"  # a name as the topic stays


def test_a_close_runner_up_is_quoted_after_the_best_and_does_not_answer_alone():
    cands = candidates(["健康診断は毎年1回行う。ストレスチェックは毎年1回行う。社員食堂は本社8階にある。"])
    # the runner-up within KEEP_RATIO (0.93 of the best) is quoted, after the best although it comes first on the page
    chosen = pick(cands[:2], np.array([0.93, 1.0]))
    assert [c.text for c in chosen] == ["ストレスチェックは毎年1回行う。", "健康診断は毎年1回行う。"]
    assert [c.text for c in pick(cands, np.array([0.5, 1.0, 0.2]))] == ["ストレスチェックは毎年1回行う。"]
    # a part asking for a number whose only sentence holding one is such a runner-up is missing, not answered
    cands = candidates(["再発行の手続は総務部で行う。一時入館証は1階受付で受け取る。"])
    part = answer_part("再発行までに何日かかりますか。", cands, np.array([0.95, 0.78]), [], [[], []])
    assert "一時入館証は1階受付で受け取る。" in [c.text for c in part.chosen] and part.status == "missing"


def test_a_later_part_needs_its_topic_words_not_its_question_word():
    from kotae.search.analyze import analyze

    part = "再発行までに何日かかるかも教えてください。"
    cands = candidates(["在籍証明書は、申請から3営業日以内に、PDFでお送りします。"])
    later = answer_part(part, cands, np.array([0.9]), analyze(part), [analyze(c.text) for c in cands], first=False)
    assert later.status == "missing"  # 日 of 何日 is no topic word: the certificate's 3営業日 does not answer it
    cands = candidates(["入館証の再発行には3営業日かかります。"])
    later = answer_part(part, cands, np.array([0.9]), analyze(part), [analyze(c.text) for c in cands], first=False)
    assert later.status == "answered"


def test_a_lead_in_whose_items_hold_the_asked_rate_answers_before_a_sentence_that_only_mentions_one():
    cands = candidates([("時間外労働及び休日労働に対しては、次の割増率により計算した割増賃金を支払う。\n"
                         "（1）時間外労働 25%\n（2）法定休日の労働 35%\n"),
                        "所定労働日の8割以上出勤した従業員に対しては、10日の年次有給休暇を与える。"])
    scores = np.array([1.0, 0.9, 0.89, 0.94])  # the rates' lead-in best, the 8割 sentence close behind
    part = answer_part("休みの日に出勤したら割増率はどれくらい？", cands, scores, [], [[]] * len(cands))
    texts = [c.text for c in part.chosen]
    assert part.status == "answered" and texts[:3] == [c.text for c in cands[:3]]  # the lead-in with its rates first
    assert checks.holds("所定労働日の8割以上出勤した", "percent")  # 8割 is a rate: it came first before (TYPED_ITEMS)


def test_a_numbered_clause_after_the_last_item_is_not_taken_for_the_item_wrapped():
    text = ("2\u3000付与日数は、次のとおりとする。\n（1）勤続6か月\u300010日\n（2）勤続6年6か月以上\u300020日\n"
            "3\u3000年次有給休暇は、半日単位で取得することができる。")
    texts = [c.text for c in candidates([text + "\n4\u300036協定に定める上限は、1か月45時間とする。2 名以上で行う。"])]
    assert texts[-4:] == ["（2）勤続6年6か月以上 20日", "年次有給休暇は、半日単位で取得することができる。",
                          "36協定に定める上限は、1か月45時間とする。", "2 名以上で行う。"]  # a plain space before 名: a count


def test_an_item_chosen_first_comes_after_its_lists_lead_in_without_the_other_items():
    text = ("従業員が次の各号に該当する場合には、当該各号に定める日数の特別休暇を与える。\n"
            "（1）本人が結婚するとき 5日\n（2）父母が死亡したとき 5日\n（3）祖父母が死亡したとき 3日")
    cands = candidates([text])
    chosen = pick(cands, np.array([0.5, 0.6, 1.0, 0.7]))  # the item on parents scores best, far ahead
    assert [c.text[:4] for c in chosen] == ["従業員が", "（2）父"]


def test_an_article_heading_after_the_last_item_is_neither_glued_to_it_nor_quoted():
    text = "賃金の構成は、次のとおりとする。\n（1）基本給\n（2）割増賃金\n第31条（基本給）\n第7章　安全衛生\n基本給は、月額で定める。"
    assert [c.text for c in candidates([text])] == ["賃金の構成は、次のとおりとする。", "（1）基本給", "（2）割増賃金",
                                                   "基本給は、月額で定める。"]


def test_a_numbered_japanese_list_item_is_no_heading_line():
    """trust-ja-020: 「2. 自宅から最寄り駅までの経路図」 reads as a numbered English heading ("2. Introduction"); only
    an article's or chapter's heading line is left out, so the list keeps its second item."""
    text = ("申請の際は、次の書類を添付してください。\n1. 利用する経路と1か月定期券の運賃がわかる画面の写し\n"
            "2. 自宅から最寄り駅までの経路図\n3. 住民票記載事項証明書の写し（住所が変わった場合のみ）")
    assert [c.text[:5] for c in candidates([text])] == ["申請の際は", "1. 利用", "2. 自宅", "3. 住民"]


# redp5110_sampled.pdf p.8: the sentence naming the table, its caption, then the rows (the table's own chunk)
FUNCTION_USAGE = ("The FUNCTION_USAGE view contains function usage configuration details. Table 2-1\n"
                  "describes the columns in the FUNCTION_USAGE view.\nTable 2-1 FUNCTION_USAGE view")
ROWS = ("\nColumn name: FUNCTION_ID | Data type: VARCHAR(30) | Description: ID of the function.\n"
        "Column name: USAGE | Data type: VARCHAR(7) | Description: Usage setting: ALLOWED: The user profile is allowed "
        "to use the function. DENIED: The user profile is not allowed to use the function.\n"
        "To discover who has authorization to define and manage RCAC, you can use the query in Example 2-1.")


def test_a_sentence_naming_a_table_comes_with_the_tables_rows():
    _, suffix = complete_lists("", FUNCTION_USAGE, ROWS)
    assert suffix.strip().startswith("Column name: FUNCTION_ID") and suffix.endswith("not allowed to use the function.")
    cands = candidates([FUNCTION_USAGE + suffix])
    assert [c.text[:18] for c in cands] == ["The FUNCTION_USAGE", "Table 2-1 describe", "Table 2-1 FUNCTION",
                                            "Column name: FUNCT", "Column name: USAGE"]  # each row whole, stops and all
    chosen = pick(cands, np.array([0.5, 1.0, 0.6, 0.6, 0.6]))  # the rows follow the sentence, the caption passed over
    assert [c.text[:18] for c in chosen] == ["Table 2-1 describe", "Column name: FUNCT", "Column name: USAGE"]
    # 「表1のとおり」 alike, with a Japanese caption between; a sentence that names no table brings nothing
    _, ja = complete_lists("", "手当の額は表1のとおりとする。\n", "表1 手当\n名称: 住宅手当 | 月額: 1万円\n名称: 通勤手当 | 月額: 実費\n第9条（賞与）")
    assert ja.split("\n") == ["表1 手当", "名称: 住宅手当 | 月額: 1万円", "名称: 通勤手当 | 月額: 実費"]
    assert complete_lists("", "手当は別に定める。\n", "名称: 住宅手当 | 月額: 1万円") == ("", "")


def test_a_tables_own_rows_stay_as_they_are_read():
    """A statement's chunk (the table's own passage) is read as sentences, not row by row: a question asking for
    several rows gets them all (rows one by one answered fewer 10-Q questions)."""
    rows = "Total assets | $462,675 | $464,378\nTotal liabilities | $300,000 | $310,000"
    assert [c.text for c in candidates([rows], tables=[True])] == [" ".join(rows.split())]
    assert [c.text for c in candidates([rows])] == rows.split("\n")  # rows in prose: each whole
    # a table's own passage: its rows, a title line over them at most (a DOCX table's chunk has no row numbers)
    assert rows_only(rows) and rows_only("Leave\n" + rows) and rows_only("A: 1 | B: 2")
    assert not rows_only("Table 2-1 describes the columns.\nFUNCTION_USAGE view\n" + rows) and not rows_only("")


def test_the_rows_a_sentence_brings_cite_the_tables_own_passage(tmp_path, monkeypatch):
    """The rows come with the sentence naming their table, and each row cites the passage it is written in (so the
    citation highlights it), not the sentence's."""
    from conftest import FakeEmbedder
    from kotae import Kotae
    from kotae.config import load_settings
    from kotae.store import open_store

    doc = tmp_path / "fees.md"
    doc.write_text("# Facilities\n\nThe building has a garage and lockers for staff. Table 1 lists the monthly fees for "
                   "staff facilities.\n\nTable 1 Monthly fees\n\n| Facility | Monthly fee |\n|---|---|\n"
                   "| Parking space | 5,000 yen |\n| Locker | 300 yen |\n| Bicycle rack | 200 yen |\n\n# Other\n\n"
                   "The cafeteria opens at noon.\n", encoding="utf-8")
    settings = load_settings({"search.gate.min_margin": -1.0, "search.gate.min_coverage": 0.0}, env={})
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), settings) as k:
        k.index([str(doc)])
        question = "Which monthly fees does Table 1 list for staff facilities?"
        answer = k.ask(question)
        assert answer.answer.startswith("Table 1 lists the monthly fees for staff facilities.[1] Facility: Parking "
                                        "space | Monthly fee: 5,000 yen[2]"), answer.answer
        assert "Bicycle rack | Monthly fee: 200 yen[2]" in answer.answer and "Table 1 Monthly fees" not in answer.answer
        assert answer.sources[1].hit.chunk.text.startswith("Facility: Parking space")
        monkeypatch.setattr(importlib.import_module("kotae.answer.ask"), "CITE_WHERE_WRITTEN", False)
        assert "Parking space | Monthly fee: 5,000 yen[1]" in k.ask(question).answer  # cited where it was read


def test_the_item_or_row_holding_the_key_the_question_names_answers_it():
    """「勤続3年6か月の…は何日？」: every item holds a number of days; the one holding 3年6か月 is about that tenure."""
    text = ("勤続期間に応じた年次有給休暇の付与日数は、次のとおりとする。\n（1）勤続6か月　10日\n（2）勤続2年6か月　12日\n"
            "（3）勤続3年6か月　14日\n（4）勤続13年6か月以上　20日")
    cands = candidates([text])
    part = answer_part("勤続3年6か月の従業員の年次有給休暇は何日ですか。", cands, np.array([0.90, 0.93, 0.92, 0.88, 0.87]),
                       [], [[]] * 5)
    assert [c.text[:3] for c in part.chosen][:2] == ["勤続期", "（3）"]  # the item, after its list's lead-in
    assert checks.keys("経費コードEX-203の承認者は誰ですか。") == ["EX-203"]
    assert checks.keys("勤続3年6か月だと何日？") == ["3年6か月"] and checks.keys("休憩は何分？") == []
    assert checks.holds_key("code: EX-203 | approval: 部長", ["EX-203"])
    assert not checks.holds_key("code: EX-2031", ["EX-203"]) and not checks.holds_key("勤続13年6か月", ["3年6か月"])


def test_a_sentence_going_on_from_the_one_before_shares_its_subject(monkeypatch):
    """u3-008: 「また、…時間単位で取得することができる。」 is about the annual leave the sentence before it names."""
    from kotae.search.analyze import analyze

    ask_module = importlib.import_module("kotae.answer.ask")
    cands = candidates([("年次有給休暇は、半日単位で取得することができる。また、1年について5日の範囲内で、時間単位で取得する"
                        "ことができる。")])
    tokens = [analyze(c.text) for c in cands]
    held = ask_module._with_context(tokens, cands)
    assert held[0] == tokens[0] and set(tokens[0]) <= set(held[1]) and "休暇" in held[1] and "休暇" not in tokens[1]
    monkeypatch.setattr(ask_module, "CONTINUED_CONTEXT", False)
    assert ask_module._with_context(tokens, cands) == tokens
