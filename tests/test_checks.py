"""Answers that contain what was asked: question kinds, parts, blank form values, partial answers."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.answer import checks
from kotae.answer.complete import answer_part, compose
from kotae.answer.extractive import Candidate
from kotae.config import load_settings
from kotae.search.analyze import analyze
from kotae.store import open_store


@pytest.mark.parametrize(("question", "kind"), [
    ("時間外労働の割増率は？", "percent"), ("入館証の再発行にいくらかかりますか", "money"),
    ("社員食堂は何時から開いていますか", "time"), ("在宅勤務は週何日まで？", "number"),
    ("賞与はいつ支給されますか", "date"), ("How much is the deposit?", "money"),
    ("What percentage of salary is paid?", "percent"), ("How many days of annual leave do I get?", "number"),
    ("When is the annual review?", "date"), ("What are the company's values?", None),
    ("How much notice do I need to give?", "number"), ("By when must card charges be registered?", "date"),
    ("What is the longest a meeting room can be booked for at once?", "number"), ("有休の上限は？", "number"),
    ("In which months is the bonus paid?", "date"), ("On which days can I see the company doctor?", "date"),
    # "when" that opens a condition asks for no date
    ("What happens to my logins when I leave for good?", None),
    ("What does VERIFY_GROUP_FOR_USER return when the user is not in the list?", None),
    # "what is the … rate" asks for a percentage (i1040nr.pdf: "The withholding is generally at the 30% rate.")
    ("What is the tax rate on dividends for nonresident aliens?", "percent"), ("What are the interest rates?", "percent"),
    ("What is the exchange rate used?", None), ("What is the rate of pay for overtime?", None),
    ("What is the guidance rate period?", None),
])
def test_the_kind_of_expression_a_question_asks_for(question, kind):
    assert checks.asked_type(question) == kind


def test_an_expression_of_the_asked_kind_and_counter():
    assert checks.holds("再発行手数料は1,000円です。", "money")
    assert not checks.holds("1か月定期乗車券の額を支給する。", "money")
    assert checks.holds("時間外労働 25%", "percent") and checks.holds("paid at 1.5 times the hourly wage", "percent")
    assert checks.holds("The fee is free of charge", "money")
    assert checks.holds("午前9時から午後6時まで", "time") and not checks.holds("速やかに届け出る", "time")
    assert checks.asked_unit("何か月分もらえる？") == "か月分"
    assert checks.holds("基本給の2ヶ月分を支給する", "number", "か月分")
    assert not checks.holds("7月支給分については前年10月1日から", "number", "か月分")
    assert checks.holds("定員は5名です", "number", "人")
    # a Japanese question's counter, answered in English
    assert checks.holds("We have about 180 employees in Tokyo.", "number", "人")
    assert checks.holds("Up to 2 hours per booking.", "number", "時間") and not checks.holds("Room 180 is free", "number", "人")
    # a year is a date, a form number is not (i1040nr.pdf: "When is Form 1040-NR due?")
    assert checks.holds("file Form 1040NR by June 16, 2008.", "date") and checks.holds("施行は2024年", "date")
    assert not checks.holds("Estimated tax paid with Form 1040-ES or Form 1040-ES (NR).", "date")
    assert not checks.holds("ヘルプデスク（内線2100）へ連絡してください", "date")


def test_a_question_that_asks_two_things_has_two_parts():
    assert checks.parts("社員食堂って何時から開いてる？今週のメニューも知りたい。") == [
        "社員食堂って何時から開いてる？", "今週のメニューも知りたい。"]
    assert checks.parts("通勤手当申請書はいつまでに出せばいい？あと、承認者は誰になってる？") == [
        "通勤手当申請書はいつまでに出せばいい？", "承認者は誰になってる？"]
    assert checks.parts("What's the per diem for overseas trips, and how much is it for domestic trips?") == [
        "What's the per diem for overseas trips", "how much is it for domestic trips?"]
    assert checks.parts("会社の休日って何がある？全部挙げて。") == ["会社の休日って何がある？全部挙げて。"]  # an aside
    assert checks.parts("残業、休日出勤、深夜の仕事、それぞれ割増率はどうなってる？") == [
        "残業、休日出勤、深夜の仕事、それぞれ割増率はどうなってる？"]


@pytest.mark.parametrize(("line", "label"), [
    ("- 支給額：　月額　　　　円", "支給額"), ("- 片道の通勤距離：　　　km", "片道の通勤距離"),
    ("- 申請日：　　年　　月　　日", "申請日"), ("- 所属：＿＿＿＿＿＿＿＿", "所属"),
    ("- 交通手段：□ 電車　□ バス　□ その他（　　　　）", "交通手段"), ("- Asset tag no.: ________", "Asset tag no."),
    ("- Loan start date: ____ / ____ / ______", "Loan start date"), ("- Deposit: $____", "Deposit"),
    ("承認者：課長", None), ("申請の際は、次の書類を添付してください：", None), ("期限：3日", None),
    ("- 交通手段：☑ 電車　□ バス", None),
])
def test_a_form_field_left_blank_is_recognised(line, label):
    assert checks.blank_field(" ".join(line.split())) == label


def _part(question, texts, scores, **kw):
    cands = [Candidate(t, i, 0) for i, t in enumerate(texts)]
    return answer_part(question, cands, np.array(scores), analyze(question), [analyze(t) for t in texts], **kw)


def test_the_sentence_holding_the_asked_number_comes_first():
    p = _part("在宅勤務は週何日まで？", ["在宅勤務の申請は所属長を通じて行う。", "在宅勤務は週2日までとする。"], [0.90, 0.88])
    assert p.status == "answered" and p.chosen[0].text == "在宅勤務は週2日までとする。"


def test_a_blank_field_is_reported_blank_never_as_the_value():
    texts = ["通勤手当は1か月定期乗車券の額を支給する。", "- 支給額： 月額 円"]
    p = _part("通勤手当申請書だと、支給額は月いくら？", texts, [1.0, 0.9])
    assert (p.status, p.label) == ("blank", "支給額")
    done = compose([p], "ja")
    assert done.completeness == "blank" and done.sentences == ()
    assert done.notes == (("「支給額」の欄は空欄です（記入用の様式で、値は書かれていません）。", 1),)
    # a sentence giving the amount answers instead
    given = _part("通勤手当の支給額は月いくら？", ["通勤手当の支給額は月額15,000円とする。", "- 支給額： 月額 円"], [1.0, 0.9])
    assert given.status == "answered"


def test_a_part_the_documents_lack_is_named_and_the_answer_is_partial():
    texts = ["社員食堂の営業時間は11時30分から14時までです。"]
    first = _part("社員食堂って何時から開いてる？", texts, [1.0])
    second = _part("今週のメニューも知りたい。", texts, [0.5], first=False, absent=["メニュー", "今週"],
                   absent_share=1.0)
    done = compose([first, second], "ja")
    assert done.completeness == "partial" and done.missing == ("メニュー, 今週",)
    assert [c.text for c in done.sentences] == texts
    assert done.notes == (("資料には「メニュー」「今週」についての記載がありません。", None),)
    late = _part("what's the late fee?", ["Submit the form at least 3 business days before you need the item."], [1.0])
    assert late.status == "missing"
    assert compose([late], "en").notes == (("The documents do not answer “what's the late fee”.", None),)



def test_a_blank_field_the_question_names_beats_an_amount_about_something_else():
    texts = ["Receipts are reimbursed up to JPY 10,000 per claim.", "- Deposit: $____"]
    p = _part("How much is the deposit for borrowing equipment?", texts, [1.0, 0.85])
    assert (p.status, p.label) == ("blank", "Deposit")
    # an amount that mentions the field answers
    given = _part("How much is the deposit for borrowing equipment?",
                  ["The deposit for borrowed equipment is JPY 5,000.", "- Deposit: $____"], [1.0, 0.85])
    assert given.status == "answered"



def test_a_blank_field_is_not_filled_by_the_same_word_about_something_else(monkeypatch):
    """trust-en-013: an expense code's row names its approver ("approval: 部長"); it does not say who approved the
    equipment loan, whose form leaves "Approved by" blank."""
    from kotae.answer import complete

    texts = ["code: EX-803 | category: 租税公課 | approval: 部長", "- Approved by: ____________"]
    p = _part("Who approved the equipment loan?", texts, [1.0, 0.85])
    assert (p.status, p.label) == ("blank", "Approved by")
    monkeypatch.setattr(complete, "BLANK_SAME_TOPIC", False)
    assert _part("Who approved the equipment loan?", texts, [1.0, 0.85]).status == "answered"  # as it was


def test_a_later_part_is_answered_only_by_a_sentence_about_it():
    texts = ["The overseas per diem is JPY 6,000 per day.",
             "Employees can request a corporate card with a monthly limit of JPY 300,000."]
    second = _part("how much is it for domestic trips?", texts[1:], [1.0], first=False)
    assert second.status == "missing"
    about = _part("how much is it for domestic trips?", ["Domestic trips get JPY 3,000 a day."], [1.0], first=False)
    assert about.status == "answered"

FORMS = """# Application forms

## Commuting allowance rules

Submit the commuting allowance form by the 10th of each month to General Affairs.

## Equipment loan form

- Borrower name: ____________
- Deposit: $____
- Approved by: ____________
"""


def test_ask_reports_a_blank_value_and_a_partial_answer(tmp_path):
    (tmp_path / "forms.md").write_text(FORMS, encoding="utf-8")
    # the gate set to answer everything: what is tested is the answer, not the refusal
    settings = load_settings({"search.gate.min_margin": -1.0, "search.gate.min_coverage": 0.0}, env={})
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), settings) as k:
        k.index([str(tmp_path / "forms.md")])
        blank = k.ask("How much is the deposit for the equipment loan form?")
        assert blank.completeness == "blank" and blank.missing == ("Deposit: blank",)
        assert "“Deposit” is left blank in the document" in blank.answer and blank.answer.endswith("[1]")
        partial = k.ask("When is the commuting allowance form due, and what is the late fee?")
        assert partial.completeness == "partial", partial.answer
        assert "by the 10th of each month" in partial.answer
        assert partial.to_dict()["completeness"] == "partial" and partial.to_dict()["missing"]


def test_a_generated_figure_the_cited_passages_do_not_give_is_named():
    passages = ["時間外労働の割増率は25%（1か月60時間を超える部分は50%）とする。"]
    assert checks.unsupported_numbers("割増率は25%です。[1] 60時間超は50%です。[1]", passages) == []
    assert checks.unsupported_numbers("割増率は30%です。[1]", passages) == ["30"]
    assert checks.unsupported_numbers("Claims of 12,000 yen [2] are due in 2024.", ["claims up to 12000 yen"],
                                      question="What was due in 2024?") == []


CAPTIONED = """# Results

We compared articles from two newspapers over one year.

Table 5: Hurricanes in the news and the places they affected

We found 6 out of 9 hurricanes in the Wikipedia list.
"""


@pytest.mark.slow
@pytest.mark.parametrize("penalty", [0.0, None])
def test_a_caption_is_not_quoted_over_the_sentence_that_answers(tmp_path, monkeypatch, e5, penalty):
    from kotae.answer import extractive
    if penalty is not None:  # without the penalty the caption, which restates the question, is quoted first
        monkeypatch.setattr(extractive, "CAPTION_PENALTY", penalty)
    (tmp_path / "results.md").write_text(CAPTIONED, encoding="utf-8")
    settings = load_settings({"search.gate.min_margin": -1.0, "search.gate.min_coverage": 0.0}, env={})
    with Kotae(open_store(str(tmp_path / "idx")), e5, settings) as k:
        k.index([str(tmp_path / "results.md")])
        first = k.ask("how many of the hurricanes in the news did the system actually find?").answer.split("[1]")[0]
        assert first.startswith("Table 5:" if penalty == 0.0 else "We found 6 out of 9"), first
        # a question about the table itself may be answered by its caption
        assert k.ask("What does table 5 show?").answer.startswith("Table 5:")

def test_captions_and_plural_which_questions():
    from kotae.answer.extractive import asks_figure, caption
    assert caption("Figure 3-5 Special registers and adopted authority") and caption("Table 5: Hurricane table (…)")
    assert caption("図2　処理の流れ") and caption("表1：付与日数") and caption("Fig. 2. Overview of the system")
    assert not caption("Figure 3-5 shows the difference in the special register values")
    assert not caption("表1のとおり付与する。") and not caption("図1に示すように、処理は三段階で行う。")
    assert asks_figure("What does Figure 3 show?") and asks_figure("表2の内容は？") and not asks_figure("Who won?")
    # "which" asks for several things only with a plural: "Which register includes …" asks for one
    assert checks.asks_list("Which days are the office anchor days?")
    assert checks.asks_list("Which newspapers were compared in the experiment?")
    assert not checks.asks_list("Which special register includes adopted authority?")
    assert not checks.asks_list("Which app is used to request leave?")


EXPENSES = """code,category,description,approval
EX-101,Train fares,Trains and buses for business trips,Manager
EX-102,Taxi,Taxis late at night or with heavy luggage,Manager
EX-106,Ferry and bus charter,Ferries and chartered buses for site visits,Department head
EX-201,Meeting snacks,Drinks and snacks for meetings,Manager
"""


def test_a_csv_answer_quotes_the_row_that_answers_and_a_list_question_the_rows(tmp_path):
    (tmp_path / "expense-codes.csv").write_text(EXPENSES, encoding="utf-8")
    settings = load_settings({"search.gate.min_margin": -1.0, "search.gate.min_coverage": 0.0}, env={})
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), settings) as k:
        k.index([str(tmp_path / "expense-codes.csv")])
        one = k.ask("Who approves the ferry and bus charter expenses?").answer
        assert one.startswith("code: EX-106 | category: Ferry and bus charter") and "EX-101" not in one, one
        every = k.ask("What kinds of expense codes are there?").answer
        assert all(code in every for code in ("EX-101", "EX-102", "EX-106", "EX-201")), every


def test_months_spelled_as_laws_spell_them_and_years_answer_their_questions():
    unit = checks.asked_unit("この詩集は何か月分の心象スケッチですか。")
    assert checks.holds("これらは二十二箇月の過去とかんずる方角から", "number", unit)  # 箇月, and no 分
    assert checks.holds("試用期間は六箇月とする。", "number", checks.asked_unit("試用期間は何ヶ月？"))
    year = checks.asked_unit("Microsoft Wordが最初に出たのは何年？")
    assert year == "年" and checks.holds("Microsoft launched Word for MS-DOS in 1983.", "number", year)
    assert not checks.holds("Word became the industry standard.", "number", year)


def test_a_money_word_is_the_topic_when_another_question_word_asks():
    assert checks.asked_type("交通費の金額は？") == "money" and checks.asked_type("How much is the fee?") == "money"
    assert checks.asked_type("What is the fee for parking?") == "money"  # nothing else is asked
    assert checks.asked_type("費用はいつ精算しますか") == "date"  # when, not how much
    assert checks.asked_type("フェリーや貸切バスの費用は誰が承認しますか。") is None  # a person (asked_detail)
    assert checks.asked_type("Who approves the fee?") is None


def test_an_faq_answer_is_quoted_without_its_answer_marker(tmp_path):
    (tmp_path / "faq.md").write_text("# FAQ\n\n### Q. 社内Wi-Fiに接続するには？\nA. 従業員用のSSIDは「SAMPLE-STAFF」です。\n\n"
                                     "### Q. Who signs off?\nA. Smith signs off on all orders.\n", encoding="utf-8")
    settings = load_settings({"search.gate.min_margin": -1.0, "search.gate.min_coverage": 0.0}, env={})
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder(), settings) as k:
        k.index([str(tmp_path / "faq.md")])
        answer = k.ask("社内Wi-FiのSSIDは？").answer
        assert "従業員用のSSIDは「SAMPLE-STAFF」です。[1]" in answer and "A. 従業員用" not in answer
    from kotae.answer.extractive import shown

    assert shown("A. Smith signs off on all orders.") == "A. Smith signs off on all orders."  # an English initial
    assert shown("Ａ．はい、できます。") == "はい、できます。"


def test_a_statement_row_holds_an_amount_without_its_currency_sign():
    """sec-13: a cash-flow statement prints "$" on its first rows only; the row that answers "How much cash did Apple
    generate from operating activities…?" holds 88,945 under a column, and counts as an amount."""
    first = ("Cash, cash equivalents and restricted cash, beginning balances | Nine Months Ended July 1, 2023: $24,977\n"
             "Operating activities › Net income | Nine Months Ended July 1, 2023: 74,039")
    answer = ("Operating activities › Cash generated by operating activities | Nine Months Ended July 1, 2023: 88,945 | "
              "Nine Months Ended June 25, 2022: 98,024")
    assert checks.holds(answer, "money") and checks.holds("Purchases of property | (248) | 2022: (361)", "money")
    # a record's plain number, a count in a cell and a figure in prose are no amounts
    for text in ("code: EX-202 | limit_jpy: 3000 per person", "Team: Canadiens | Stanley Cups: 24",
                 "The city had 1,234,567 people in 2020."):
        assert not checks.holds(text, "money"), text
    cands = [Candidate(first, 0, 0), Candidate(answer, 1, 0)]
    part = answer_part("How much cash did Apple generate from operating activities?", cands,
                       np.array([0.92, 1.0]), [], [[], []])
    assert part.chosen[0].text == answer  # before, the "$" row took the amount's bonus alone


def test_passages_lacking_a_name_the_question_mentions_are_told_apart():
    """sec-29: "Intel's R&D expense in the quarter ended April 1, 2023" was answered from Apple's statement of the
    same date; a passage that lacks the name, where another holds it, now scores lower (ask.NAME_PENALTY)."""
    import importlib

    from kotae.types import Chunk, Hit

    ask = importlib.import_module("kotae.answer.ask")

    def hit(text: str, heading: tuple[str, ...], lang: str = "en") -> Hit:
        return Hit(Chunk("id", "doc", "f.pdf", 1, heading, text, 0, len(text), lang))

    apple = hit("Research and development | Three Months Ended April 1, 2023: 7,457", ("Apple Inc. Form 10-Q",))
    intel = hit("Research and development | Three Months Ended Apr 1, 2023: 4,109", ("Intel Corporation Form 10-Q",))
    rules = hit("研究開発費は4,109百万ドル。", ("インテル",), lang="ja")  # the other language: no telling
    question = "What was Intel's research and development expense in the quarter ended April 1, 2023?"
    assert ask._naming(question, [apple, intel, rules]) == [False, True, True]
    assert ask._naming(question, [apple]) == [True]  # no passage holds it: nothing to tell apart
    assert ask._naming("What was the research and development expense?", [apple, intel]) == [True, True]
