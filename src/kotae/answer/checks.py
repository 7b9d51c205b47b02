"""Answer checks, pure text functions: what a question asks for and whether a sentence holds it.

- `parts`: a question that asks two things (「何時から？今週のメニューも知りたい」, "…, and how much is it for …?")
  is split into its parts, so each part is answered, or named as missing, on its own.
- `asked_type`: the kind of expression a part asks for (money いくら/how much, percent 何%/what percentage,
  time 何時/what time, number 何人/何日間/how many/how long, date いつ/when); `holds` tells whether a
  sentence contains one. A part whose evidence holds no such expression is not answered by it.
- `blank_field`: a line of a form template whose value is left blank (「支給額：月額　　　　円」,
  "Asset tag no.: ________"): such a line is never an answer; it is reported as a blank value.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["DETAILS", "TYPES", "asked_detail", "asked_type", "asked_unit", "asks_list", "blank_field", "holds", "parts", "unsupported_numbers",
           "without_asking"]

_DIGIT = r"[0-9０-９]"
_KANJI_NUM = r"[一二三四五六七八九十百千万半両毎]"
_EN_NUM = r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|half|once|twice|dozen)\b"
_MONTHS = (r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")

# kind → (what a question that asks for it looks like, what an expression of it looks like); the first
# matching kind wins, so the more specific come first.
TYPES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "percent": (
        re.compile(r"何\s*(?:%|％|パーセント|割)|割合|(?:率|レート)(?:は|って|を|が|について)|何分の|"
                   r"\bwhat (?:percent|percentage|share|fraction|rate)\b|\bpercentage\b|\bhow high is the \w*\s*rate\b|"
                   r"\bwhat(?:'s| is| are| was| were) the (?!exchange|heart|frame|bit|baud|sample|sampling|hourly|"
                   r"flow|pay\b|day\b)(?:[\w-]+ ){0,3}rates?(?! of (?:pay|exchange))(?=\s*(?:[?.,]|$|(?:on|for|of|in|at|"
                   r"applied|applies|used|that|when|under|paid|charged|is|was|were|are)\b))",
                   re.IGNORECASE),
        re.compile(rf"{_DIGIT}(?:[.,．]{_DIGIT})?\s*(?:%|％|パーセント|割|分の|percent\b)|{_KANJI_NUM}+割|"
                   rf"\bper ?cent\b|倍|{_DIGIT}(?:[.,．]{_DIGIT}+)?\s*times\b", re.IGNORECASE)),
    "money": (
        re.compile(r"いくら|幾ら|何\s*[万千百億]*\s*円|値段|\bhow much\b(?! (?:time|notice|leave|longer|earlier))",
                   re.IGNORECASE),
        re.compile(rf"{_DIGIT}[0-9０-９,，.]*\s*(?:万|千)?\s*円|[¥￥$＄]\s?{_DIGIT}|\bJPY\b|\bUSD\b|\byen\b|"
                   rf"{_DIGIT}\s*(?:dollars?|ドル)|無料|無償|実費|全額|\bfree\b|\bno charge\b|\bat cost\b|"
                   rf"{_KANJI_NUM}+円", re.IGNORECASE)),
    "time": (
        re.compile(r"何\s*時(?!間)|何時から|何時まで|\bwhat time\b|\bopening hours\b|\bwhat hours\b|\bhow (?:late|early)\b|"
                   r"\binto the (?:evening|night|morning)\b", re.IGNORECASE),
        re.compile(rf"{_DIGIT}{{1,2}}\s*時|{_DIGIT}{{1,2}}[:：]{_DIGIT}{{2}}|午前|午後|正午|深夜|"
                   r"\bnoon\b|\bmidnight\b|\b[ap]\.?m\b\.?|o'clock", re.IGNORECASE)),
    "number": (
        re.compile(r"何\s*(?:人|名|回|日|か月|ヶ月|カ月|ヵ月|箇月|年|キロ|km|件|個|枚|歳|時間|分|週|社|台|号|度|倍|万|千|百|億)|"
                   r"どのくらい|どれくらい|どれぐらい|どのぐらい|どれだけ|"
                   r"\bhow (?:many|long|far|often|old|soon)\b|\bhow much (?:time|notice|leave)\b|"
                   r"\bwhat(?: is|'s) the (?:maximum|minimum|limit|number|longest|shortest|most|fewest|least|"
                   r"highest|lowest|largest|smallest|biggest)\b|(?:上限|下限|最長|最短|最大|最小|最低|最高)(?:は|って)",
                   re.IGNORECASE),
        re.compile(rf"{_DIGIT}|{_KANJI_NUM}+\s*(?:人|名|回|日|か月|ヶ月|箇月|年|件|個|枚|歳|時間|分|週|度|倍|つ)|"
                   rf"{_EN_NUM}|\bevery (?:day|week|month|year)\b|\b(?:daily|weekly|monthly|annually|yearly)\b",
                   re.IGNORECASE)),
    "date": (
        re.compile(r"いつ|何\s*月|何\s*曜|締め?切り?|期限|^\W*when\b|\bwhen\s+(?:do|does|did|is|are|was|were|will|would|"
                   r"can|could|should|must|may|might|has|have|had|shall)\b|\bwhat (?:dates?|days?)\b|\bwhich (?:days?|dates?|months?|weekdays?|years?)\b|"
                   r"\bdeadline\b|\bby what\b|\bhow far (?:ahead|in advance)\b", re.IGNORECASE),
        re.compile(rf"{_DIGIT}\s*(?:月|日|年|週|営業日|か月|ヶ月)|{_KANJI_NUM}+\s*(?:月|日|年)|曜日?|毎月|毎年|毎週|"
                   rf"翌|前日|当日|まで|以内|前に|後に|時点|とき|際|"
                   rf"{_MONTHS}|\b(?:day|days|week|weeks|month|months|year|years|quarter|annual|annually|before|"
                   rf"after|within|until|by the)\b|(?<![0-9０-９])(?:1[89]|20)[0-9]{{2}}(?![0-9０-９])", re.IGNORECASE)),
}


# finer than a kind: what the answer's expression looks like when the question asks for a deadline or a person
# (a bonus to the sentences holding one, never a reason to call a part missing)
DETAILS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"いつまで|何日前|何日以内|締め?切り?|期限|\bby when\b|\bhow (?:far|long) in advance\b|\bdeadline\b|"
                r"\bhow much notice\b|\bhow soon\b", re.IGNORECASE),
     re.compile(r"までに|以内|前日|前まで|日前|\bby\b|\bbefore\b|\bno later than\b|\bwithin\b|\bin advance\b|"
                r"\bprior\b|\bnotice\b", re.IGNORECASE)),
    (re.compile(r"名前|名称|何という|なんという|\b(?:name|called)\b", re.IGNORECASE),  # a name: quoted or an identifier
     re.compile(r"[「『\"“][^」』\"”]{2,40}[」』\"”]|\b[A-Z][A-Za-z0-9]*[-_][A-Za-z0-9-_]+\b|\b[A-Z]{3,}\b")),
    (re.compile(r"誰|だれ|どなた|承認者|\bwho(?:m|se)?\b", re.IGNORECASE),
     re.compile(r"[部課室係]長?|役員|社長|上長|上司|所属長|担当者?|委員会|\b(?:manager|head|director|department|team|"
                r"officer|supervisor|board|lead|people team|hr|ceo|cfo)\b", re.IGNORECASE)),
)
# whether something is allowed (「副業してもいいですか」, "Am I allowed to…", "Can I…"): the sentence that says it may or
# may not be done (「…従事することができる」, 「…してはならない」, "may", "is prohibited")
PERMISSION = (
    re.compile(r"て(?:も|は)?(?:いい|良い|よい|よろしい|大丈夫|構わない|かまわない|OK|オーケー)|(?:こと|の)?(?:は|が)?"
               r"(?:でき|出来)(?:ます|る)(?:か|の)|可能(?:です)?か|許(?:され|可され)|認められ|ダメ|だめ|禁止(?:です|され)?(?:か|\?)|"
               r"\b(?:am|are|is) (?:i|we|you|they|he|she|employees?|staff|it) (?:allowed|permitted|ok|okay)\b|"
               r"\b(?:can|may|could) (?:i|we|employees?|staff|you|someone|people)\b|\bis it (?:ok|okay|allowed|permitted|fine)\b",
               re.IGNORECASE),
    re.compile(r"ことができ|ことはできない|ことができない|ても(?:よい|良い|差し支えない|構わない)|許可|禁止|禁ず|"
               r"してはならない|てはならない|不可|\b(?:may|can|cannot|can't|must not|allowed|permitted|prohibited|forbidden|"
               r"not allowed|not permitted)\b", re.IGNORECASE))
_WH = re.compile(r"何|いつ|どこ|誰|だれ|どの|どう|どれ|いくら|\b(?:what|how|when|which|who|whom|whose|where|why)\b",
                 re.IGNORECASE)
PERMISSION_DETAIL = True  # bench/answers.py --constant kotae.answer.checks.PERMISSION_DETAIL=false
# what something is calculated from (「何を基準に計算する？」, "What pay is the overtime premium calculated from?"): the
# sentence that names the basis (「…算定の基礎となる…賃金額は、基本給及び役職手当の合計額を…除した額とする」), not the one
# that says it is calculated (bench/answers.py --constant kotae.answer.checks.BASIS_DETAIL=false)
BASIS_DETAIL = True
BASIS = (re.compile(r"(?:何|どれ|なに)(?:を|が)(?:基準|基礎|もと|元|ベース)|(?:基準|基礎|計算方法|算定方法|計算式)(?:は|って|を)|"
                    r"どう(?:やって)?(?:計算|算定|算出)|\b(?:calculated|computed|based|worked out)\s+(?:from|on)\b|"
                    r"\bbasis\b|\bhow (?:is|are) .{1,40} (?:calculated|computed)\b", re.IGNORECASE),
         re.compile(r"基礎|基準|基づ|を基に|をもとに|除した|乗じた|合計額|\bbased on\b|\bbasis\b|\bcalculated (?:from|on|as|by)\b|"
                    r"\bdivided by\b|\bmultiplied by\b", re.IGNORECASE))
# A rule grants what it allows: 「…申し出た場合は、それに必要な時間を与える。」 answers 「投票に行くために仕事を抜けてもいい？」
# as 「…することができる」 would (a grant that ends its sentence, not 「損害を与えたとき」): bench/answers.py --constant
# kotae.answer.checks.PERMISSION_GRANTS=false
PERMISSION_GRANTS = True
GRANTS = re.compile(PERMISSION[1].pattern + r"|(?:を|に)(?:与える|認める|付与する)(?:ものとする)?(?:。|$)|"
                     r"\b(?:is|are) (?:entitled|granted|given)\b", re.IGNORECASE)


# the words that only say what is asked (どんな場合, 名前は): no evidence of the topic, so no keyword credit
_ASKING_PHRASE = re.compile(r"(?:どんな|どういう|どのような|どの様な|どういった)\s*(?:場合|とき|時|もの|こと|ケース)|"
                            r"(?:の)?(?:名前|名称)(?=\s*(?:は|って|を教えて|$|[?？]))", re.IGNORECASE)


def without_asking(question: str) -> str:
    """`question` without the phrase that only says what kind of answer it wants (「クビになるのはどんな場合？」 →
    「クビになるのは？」): what stays are the words the answer's sentence should share."""
    return _ASKING_PHRASE.sub(" ", unicodedata.normalize("NFKC", question))


def asked_detail(question: str) -> re.Pattern[str] | None:
    """The finer expression `question` asks for (a deadline: 「前日の正午までに」, "by"; a person or office:
    「所属長」, "department head"), as a pattern, or None."""
    q = unicodedata.normalize("NFKC", question)
    found = next((expr for asks, expr in DETAILS if asks.search(q)), None)
    if found is None and BASIS_DETAIL and BASIS[0].search(q):
        found = BASIS[1]
    if found is None and PERMISSION_DETAIL and PERMISSION[0].search(q) and not _WH.search(q) and asked_type(q) is None:
        # a yes/no question ("How much can we spend?" asks an amount, not leave): a rule that allows or grants it
        return GRANTS if PERMISSION_GRANTS else PERMISSION[1]
    return found


# "What were Amazon's net sales…?", "What was Intel's R&D expense…?": a financial line item asks for an amount (not
# "the expense code", "the sales team", nor a growth, margin or share, which ask for a rate)
_FINANCIAL = re.compile(r"\bwhat (?:was|were|is|are)\b[^?]{0,80}\b(?:revenues?|net sales|sales|net income|income|expenses?|"
                        r"profits?|earnings|assets|liabilities|cash flows?|capital expenditures?|spend(?:ing)?)\b"
                        r"(?!'s|\s+(?:codes?|policy|policies|categor(?:y|ies)|reports?|accounts?|forms?|claims?|types?|names?|"
                        r"numbers?|tax|system|team|department|manager)\b)(?![^?]*"
                        r"\b(?:growth|margin|rate|ratio|share|percent(?:age)?|change)\b)", re.IGNORECASE)
FINANCIAL_AMOUNTS = True  # bench/reading.py --set sec10q --constant kotae.answer.checks.FINANCIAL_AMOUNTS=false

# words that name an amount of money as the topic (費用, fee): the question asks for the amount only when no question
# word asks for something else (「費用は誰が承認しますか」 asks for a person, 「費用はいつ精算しますか」 for a date)
_MONEY_TOPIC = re.compile(r"金額|料金|費用|\bcost\b|\bprice\b|\bfee\b|\bdeposit\b|\bamount\b", re.IGNORECASE)
_WHO = re.compile(r"誰|だれ|どなた|\bwho(?:m|se)?\b", re.IGNORECASE)
MONEY_TOPIC_LAST = True  # bench/answers.py --constant kotae.answer.checks.MONEY_TOPIC_LAST=false


def asked_type(question: str) -> str | None:
    """The kind of expression `question` asks for ("money", "percent", "time", "number", "date"), or None."""
    q = unicodedata.normalize("NFKC", question)
    for kind, (asks, _) in TYPES.items():
        if asks.search(q) or (kind == "money" and ((not MONEY_TOPIC_LAST and _MONEY_TOPIC.search(q))
                                                   or (FINANCIAL_AMOUNTS and _FINANCIAL.search(q)))):
            return kind
    return "money" if MONEY_TOPIC_LAST and _MONEY_TOPIC.search(q) and not _WHO.search(q) else None


# 何 + counter: the counter the answer's number must carry, with its equivalent spellings (箇月: the spelling of laws
# and regulations, 「六箇月」); 何か月分 is answered by a number of months with or without 分 (「二十二箇月」)
_COUNTER = re.compile(r"何\s*(人|名|回|か月分|ヶ月分|カ月分|箇月分|か月|ヶ月|カ月|ヵ月|箇月|年|キロ|km|件|個|枚|歳|時間|週|社|台|倍|万|千|"
                      r"百|億)")
_MONTH = "[かヶカヵケ箇个]月"
_SAME = {"名": "人|名", **{u: f"{_MONTH}分?" for u in ("か月分", "ヶ月分", "カ月分", "箇月分")},
         **{u: _MONTH for u in ("か月", "ヶ月", "カ月", "ヵ月", "箇月")},
         "人": "人|名", "キロ": "キロ|km|ｋｍ", "km": "キロ|km|ｋｍ"}
# the same counters in English, for a Japanese question answered by an English sentence (何人 → "180 employees")
_ENGLISH = {"人": "people|persons|employees|staff|members|workers|participants", "名": "people|persons|employees|staff|"
            "members|workers|participants", "回": "times", "年": "years?", "時間": "hours?|hrs?", "週": "weeks?",
            "か月": "months?", "ヶ月": "months?", "カ月": "months?", "ヵ月": "months?", "箇月": "months?", "件": "cases?|items?",
            "枚": "sheets?|pages?|cards?", "歳": "years? old", "社": "companies|firms", "台": "units?|machines?|vehicles?"}


def asked_unit(question: str) -> str | None:
    """The counter a Japanese number question asks for (何か月分 → "か月分", 何人 → "人"), or None."""
    m = _COUNTER.search(unicodedata.normalize("NFKC", question))
    return m.group(1) if m else None


_YEAR = re.compile(r"(?<![0-9])(?:1[89]|20)[0-9]{2}(?![0-9])")
# an identifier's digits (EX-604, K-3, RW-1, v2) are no amount, count or time
_CODE = re.compile(r"\b[A-Za-z]{1,6}[-‐]?[0-9]+(?:[-‐][0-9A-Za-z]+)*\b")


def holds(text: str, kind: str, unit: str | None = None) -> bool:
    """Whether `text` contains an expression of `kind` (a number with its unit, a time, a date, …); with
    `unit`, a number followed by that counter (or an equivalent spelling)."""
    t = _CODE.sub(" ", unicodedata.normalize("NFKC", text))
    if unit is not None:
        if re.search(rf"(?:{_DIGIT}|{_KANJI_NUM})\s*(?:{_SAME.get(unit, re.escape(unit))})", t):
            return True
        if unit == "年" and _YEAR.search(t):  # 何年 asks for a year too: "launched in 1983"
            return True
        return unit in _ENGLISH and bool(re.search(rf"{_DIGIT}\s*(?:{_ENGLISH[unit]})\b", t, re.IGNORECASE))
    if kind == "money" and TABLE_FIGURES and _TABLE_FIGURE.search(t):
        return True
    return bool(TYPES[kind][1].search(t))


# a table cell holding a grouped figure ("Cash generated by operating activities | Nine Months Ended July 1, 2023:
# 88,945"): a statement prints its currency once, on its first row or in "(In millions)", so its other rows hold
# amounts without one
_TABLE_FIGURE = re.compile(r"(?:^|\|)[^|\n:]{1,120}:\s*\$?\s?(?:\(?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|\(\d+(?:\.\d+)?\))"
                           r"\s*(?:\||$)", re.MULTILINE)  # 88,945; (1,311); (361): a negative amount
TABLE_FIGURES = True  # bench/reading.py --set sec10q --constant kotae.answer.checks.TABLE_FIGURES=false


_LIST = re.compile(r"何が(?:ある|あり)|何を|どれ(?!くらい|ぐらい|だけ|ほど)|どんな(?:もの|とき|場合)|どういう(?:もの|とき|場合)|全部|すべて|全て|それぞれ|"
                   r"一覧|挙げ|\bwhich\s+(?:[\w-]+\s+){0,2}?[\w-]+s\s+(?:are|were|do|did|have|had|can|could|must|may|should|will|would)\b|"
                   r"\bwhat (?:kinds?|types?|sorts?)\b|\bwhat (?:are|do|does|goes)\b|\blist\b|"
                   r"\ball (?:the )?\w+s\b|\beach\b", re.IGNORECASE)


# 「給与から天引きされるものは何ですか」 asks for the things that are: a list (bench/answers.py --constant
# kotae.answer.checks.LIST_THINGS=false)
LIST_THINGS = True
_THINGS = re.compile(r"もの(?:は|って|とは)(?:何|なに|なん)")


def asks_list(question: str) -> bool:
    """Whether `question` asks for several things (何がある/全部/それぞれ/〜ものは何, which Xs are/what kinds/list;
    "Which register includes …" asks for one): a sentence that introduces a list is then the better answer."""
    q = unicodedata.normalize("NFKC", question)
    return bool(_LIST.search(q) or (LIST_THINGS and _THINGS.search(q)))


_JA_SPLIT = re.compile(r"(?<=[?？。!！])\s*|[、,]\s*(?=(?:あと|また|それと|それから|ついでに)[、,]?)")
_EN_SPLIT = re.compile(r"(?<=[?!.])\s+|,?\s+(?:and|also|plus)\s+(?=(?:what|how|which|who|where|when|why|can|could|do|"
                       r"does|did|is|are|will|should|may)\b)", re.IGNORECASE)
_JA_LEAD = re.compile(r"^(?:あと|また|それと|それから|ついでに)[、,]?\s*")
MIN_PART = 4
MIN_ASKING_PART = 8  # a shorter part that asks for no kind of expression is an aside (「全部挙げて。」): kept with the one before


def parts(question: str) -> list[str]:
    """The question's parts: one unless it asks two things in two sentences or clauses (too-short pieces are
    kept with their neighbour)."""
    q = question.strip()
    ja = bool(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q))
    pieces = [p.strip() for p in (_JA_SPLIT if ja else _EN_SPLIT).split(q) if p and p.strip()]
    out: list[str] = []
    for p in pieces:
        p = _JA_LEAD.sub("", p) if ja else p
        size = len(re.sub(r"\W", "", p))
        if out and (size < MIN_PART or (size < MIN_ASKING_PART and asked_type(p) is None)):
            out[-1] = f"{out[-1]} {p}" if not ja else out[-1] + p
        elif len(re.sub(r"\W", "", p)) >= MIN_PART:
            out.append(p)
    return out or [q]


# "label：value" on one line (a form field); the value is blank when nothing is left after removing units,
# fill-in marks, brackets and check boxes.
_FIELD = re.compile(r"^\s*(?:[-*・•●]\s*)?(?P<label>[^:：\n]{1,40}?)\s*[:：]\s*(?P<value>.*)$")
_FILL = re.compile(r"[\s\u3000_＿\-‐ー―─/／.．…()（）\[\]［］「」□■☐☑✓〜~・,、]+")
_UNITS = re.compile(r"(?:月分から|分から|月額|年額|日額|時給|万円|千円|から|まで|年|月|日|時|分|秒|円|km|ｋｍ|キロ|駅|人|名|回|"
                    r"件|個|枚|号|階|%|％|\$|¥|￥|JPY|yen|days?|hours?|minutes?|weeks?|months?|years?|no\.?|from|to|"
                    r"until|〜)", re.IGNORECASE)
_EMPTY = re.compile(r"[_＿]{3,}|（[\s\u3000]*）|\([\s\u3000]*\)")
_BOXES = re.compile(r"[□☐]")
_CHECKED = re.compile(r"[☑☒■✓✔]")


def blank_field(sentence: str) -> str | None:
    """The field's label when `sentence` is a form field left blank (「支給額：月額　　　　円」 → "支給額",
    "Asset tag no.: ________" → "Asset tag no."), else None. A line that ends in a colon (a lead-in) is not one."""
    line = sentence.strip()
    if "\n" in line:
        return None
    m = _FIELD.match(line)
    if not m or not m.group("value").strip():
        return None
    value = m.group("value")
    rest = _FILL.sub("", _UNITS.sub("", _FILL.sub(" ", value)))
    if re.search(r"[0-9０-９]", rest):
        return None
    unchecked = bool(_BOXES.search(value)) and not _CHECKED.search(value)
    if rest and not _EMPTY.search(value) and not unchecked:
        return None
    label = m.group("label").strip()
    return label or None


_NUMBER = re.compile(r"\d+(?:[,.]\d+)*")
_MARKER = re.compile(r"\[\d+(?:\s*[,、]\s*\d+)*\]")


def _numbers(text: str) -> list[str]:
    t = _MARKER.sub(" ", unicodedata.normalize("NFKC", text))
    return [n.replace(",", "") for n in _NUMBER.findall(t)]


def unsupported_numbers(answer: str, passages: Sequence[str], question: str = "") -> list[str]:
    """The numbers of a generated `answer` (citation markers aside) that neither its cited `passages` nor the
    question contain: an LLM's figure the evidence does not give."""
    known = set(_numbers(question))
    for p in passages:
        known.update(_numbers(p))
    return list(dict.fromkeys(n for n in _numbers(answer) if n not in known))


# The key a question names (「勤続3年6か月の…」, 「経費コードEX-203の…」): a number with its unit, or an identifier of
# letters and digits. A list item or table row holding it verbatim is the one about that key (the tenure table's
# item, the expense code's record), where the others hold the asked kind only for other keys (`complete.KEY_BONUS`).
_KEY_UNIT = r"(?:年|か月|ヶ月|カ月|箇月|月|週間|週|日|時間|分|歳|人|回|件|円|万円|%|％|名|号|条)"
_KEYS = re.compile(rf"\d+(?:[.,]\d+)?\s*{_KEY_UNIT}(?:\s*\d+(?:[.,]\d+)?\s*{_KEY_UNIT})*|"
                   r"(?<![A-Za-z0-9])(?:[A-Za-z]+[-_]?\d+|\d+[-_]?[A-Za-z]+)[A-Za-z0-9_-]*(?<!-)(?![A-Za-z0-9])")


def keys(question: str) -> list[str]:
    """The keys `question` names, without spaces, as written after NFKC: 「3年6か月」, "EX-203"."""
    q = unicodedata.normalize("NFKC", question)
    return list(dict.fromkeys("".join(m.group().split()) for m in _KEYS.finditer(q)))


def holds_key(text: str, found: Sequence[str]) -> bool:
    """Whether `text` holds one of the keys `found` verbatim (spaces aside), not inside a longer number or
    identifier: 「13年6か月」 does not hold 「3年6か月」, "EX-2031" does not hold "EX-203"."""
    t = "".join(unicodedata.normalize("NFKC", text).split())
    for k in found:
        for m in re.finditer(re.escape(k), t):
            before = t[m.start() - 1] if m.start() else ""
            after = t[m.end()] if m.end() < len(t) else ""
            if before.isdigit() or (k[0].isascii() and k[0].isalpha() and before.isascii() and before.isalnum()):
                continue
            if k[-1].isdigit() and after.isdigit():
                continue
            return True
    return False
