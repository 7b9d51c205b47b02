"""Check the golden question sets against the sample documents.

Run:  python samples/check_golden.py        (exit status 0 = all good, 1 = problems were printed)

For every item of golden-ja.jsonl and golden-en.jsonl:
  * the schema: exactly the fields id, question, answerable, category, file, pages, must_contain, answer
    (+ optional note), with the right types and a known category;
  * answerable items: every must_contain phrase occurs (whitespace removed) in the extracted text of at
    least one listed evidence page, and every listed page holds at least one of the phrases;
    PDF pages come from pypdfium2, .docx pages from python-docx (page = 1 + explicit page breaks before
    the paragraph or table), .md and .csv files are one page;
  * "paraphrase" items share no content word with the evidence passage (the article, FAQ entry, CSV row
    or .docx paragraph holding a must_contain phrase);
  * "cross-lingual" items of golden-ja are asked in English;
  * unanswerable items: file null, pages and must_contain empty, and none of their key words
    (UNANSWERABLE_KEYWORDS below) occurs in any sample document;
  * the minimum category counts asked for the sets;
  * README.md (indexed along with the samples) holds no must_contain phrase and no unanswerable key word.
"""
from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
SETS = {"golden-ja.jsonl": "ja", "golden-en.jsonl": "en"}
FIELDS = ["id", "question", "answerable", "category", "file", "pages", "must_contain", "answer"]
OPTIONAL = {"note"}
CATEGORIES = {"lookup", "paraphrase", "numeric", "multi-passage", "cross-lingual", "unanswerable"}
DOCUMENTS = ["work-rules.pdf", "faq.md", "employee-handbook.docx", "expense-codes.csv"]
SET_FILES = {"ja": {"work-rules.pdf", "faq.md", "expense-codes.csv"},
             "en": {"employee-handbook.docx", "expense-codes.csv"}}
MINIMUM = {
    "ja": {"total": 34, "paraphrase": 10, "unanswerable": 6, "multi-passage": 3, "cross-lingual": 4,
           "numeric": 3},
    "en": {"total": 22, "unanswerable": 4, "lookup": 3, "paraphrase": 3, "numeric": 3},
}
PDF_RUNNING_HEADER = "株式会社サンプル商事　就業規則"
PDF_FORBIDDEN = ["給料", "給与", "クビ"]

# Key words of each unanswerable question: none may occur in any sample document (case-insensitive).
UNANSWERABLE_KEYWORDS = {
    "社員旅行の行き先はどこですか。": ["社員旅行", "旅行"],
    "株主優待はありますか。": ["株主", "優待"],
    "ペットを連れて出社してもよいですか。": ["ペット", "犬", "同伴"],
    "社宅の家賃はいくらですか。": ["社宅", "家賃", "寮"],
    "退職金はどのように計算されますか。": ["退職金"],
    "制服は支給されますか。": ["制服", "ユニフォーム"],
    "会社の駐車場は使えますか。": ["駐車"],
    "社内恋愛について届出のルールはありますか。": ["恋愛"],
    "Does the company pay for gym memberships?": ["gym", "fitness", "ジム"],
    "What is the vesting schedule for employee stock options?": ["stock option", "vesting", "equity",
                                                                 "ストックオプション"],
    "How much does the company contribute to the employee pension plan?": ["pension", "retirement plan",
                                                                          "年金制度"],
    "What is the dress code for client meetings?": ["dress code", "attire", "服装"],
    "Can employees get a company car?": ["company car"],
    "Is there a relocation allowance for moving to the Fukuoka office?": ["relocation", "relocat"],
}

# The brief requires this paraphrase question although it shares 支払 with its evidence
# (「翌月25日に支払う」): the paraphrased word is 給料 (the rules only say 賃金).
REQUIRED_JA = "給料はいつ支払われますか"
ALLOWED_OVERLAP = {REQUIRED_JA: {"支払"}}
JA_GENERIC = {"場合"}  # not content-bearing enough to count as a shared word
EN_STOPWORDS = set("""
a an and are as at be been but by can could do does did for from get gets got had has have how i if in into
is it its me my may might must no not of on or our out over so than that the their them then there these
they this to up us was we were what when where which who whom why will with would you your yours am per
each any off too very much many long how
""".split())

_WS = re.compile(r"\s+")
_JA_WORD = re.compile(r"[\u4e00-\u9fff々]{2,}|[\u30a1-\u30faー]{2,}")
_JA_CHAR = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def norm(text: str) -> str:
    return _WS.sub("", text)


# ------------------------------------------------------------------------------------------- documents
class Doc:
    """pages: 1-based page -> text; passages: list of (page, text) units used for the paraphrase check."""

    def __init__(self, pages: dict[int, str], passages: list[tuple[int, str]], units: list[str] | None = None):
        self.pages = pages
        self.passages = passages
        # the texts a golden-users phrase must lie within: a paragraph or one table cell (default: a page)
        self.units = units if units is not None else list(pages.values())


def load_pdf(path: Path) -> Doc:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        raw = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()
    pages = {i + 1: text for i, text in enumerate(raw)}
    # Passages = articles: the body lines of all pages, running header and page numbers dropped, cut
    # before each 第N条（…） heading; an article that runs over a page break is one passage (page = start).
    body: list[tuple[int, str]] = []
    for number, text in pages.items():
        for line in text.splitlines():
            line = line.strip()
            if not line or line == PDF_RUNNING_HEADER or re.fullmatch(r"-\s*\d+\s*-", line):
                continue
            body.append((number, line))
    passages: list[tuple[int, str]] = []
    for number, line in body:
        if re.match(r"第\d+条（|附則$|第\d+章", line) or not passages:
            passages.append((number, line))
        else:
            passages[-1] = (passages[-1][0], passages[-1][1] + "\n" + line)
    return Doc(pages, passages)


def load_docx(path: Path) -> Doc:
    import docx
    from docx.oxml.ns import qn

    document = docx.Document(str(path))
    page = 1
    pages: dict[int, list[str]] = {1: []}
    passages: list[tuple[int, str]] = []
    units: list[str] = []
    for block in document.iter_inner_content():
        if hasattr(block, "rows"):  # a table: one passage per row
            for row in block.rows:
                text = " | ".join(cell.text for cell in row.cells)
                pages[page].append(text)
                passages.append((page, text))
                units += [cell.text for cell in row.cells]
            continue
        breaks = [br for br in block._p.iter(qn("w:br")) if br.get(qn("w:type")) == "page"]
        if block.text.strip():
            pages[page].append(block.text)
            passages.append((page, block.text))
            units.append(block.text)
        if breaks:
            page += len(breaks)
            pages.setdefault(page, [])
    return Doc({n: "\n".join(texts) for n, texts in pages.items()}, passages, units)


def load_md(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8")
    entries = re.split(r"\n(?=#{1,3} )", text)
    return Doc({1: text}, [(1, entry) for entry in entries])


def load_csv(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    return Doc({1: text}, [(1, ",".join(row)) for row in rows[1:]], [cell for row in rows for cell in row])


LOADERS = {".pdf": load_pdf, ".docx": load_docx, ".md": load_md, ".csv": load_csv}


def load_documents() -> dict[str, Doc]:
    return {name: LOADERS[Path(name).suffix](DOCS / name) for name in DOCUMENTS}


# ----------------------------------------------------------------------------------------------- checks
def en_stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def en_words(text: str) -> set[str]:
    return {en_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in EN_STOPWORDS and len(w) > 2}


def shared_words(question: str, passage: str, lang: str) -> set[str]:
    if lang == "ja":
        words = {w for w in _JA_WORD.findall(question) if w not in JA_GENERIC and not w.startswith("何")}
        words -= ALLOWED_OVERLAP.get(question.rstrip("。？?"), set())
        return {w for w in words if w in norm(passage)}
    return en_words(question) & en_words(passage)


def check_item(item: dict, lang: str, docs: dict[str, Doc], where: str) -> list[str]:
    problems: list[str] = []
    keys = list(item)
    if [k for k in keys if k not in OPTIONAL] != FIELDS or not set(keys) <= set(FIELDS) | OPTIONAL:
        problems.append(f"{where}: fields must be {FIELDS} (+ optional note), got {keys}")
        return problems
    types = {"id": str, "question": str, "answerable": bool, "category": str, "pages": list,
             "must_contain": list, "answer": str}
    for key, typ in types.items():
        if not isinstance(item[key], typ):
            problems.append(f"{where}: {key} must be {typ.__name__}")
    if problems:
        return problems
    if not re.fullmatch(rf"{lang}-\d{{3}}", item["id"]):
        problems.append(f"{where}: id {item['id']!r} should look like {lang}-001")
    if item["category"] not in CATEGORIES:
        problems.append(f"{where}: unknown category {item['category']!r}")
    if not item["question"].strip() or not item["answer"].strip():
        problems.append(f"{where}: empty question or answer")
    if "note" in item and not isinstance(item["note"], str):
        problems.append(f"{where}: note must be a string")

    english_question = not _JA_CHAR.search(item["question"])
    if lang == "ja":
        if (item["category"] == "cross-lingual") != english_question:
            problems.append(f"{where}: golden-ja questions are Japanese except the cross-lingual ones")
    elif not english_question:
        problems.append(f"{where}: golden-en questions must be in English")
    if english_question == bool(_JA_CHAR.search(item["answer"])) and item["answerable"]:
        problems.append(f"{where}: the answer must be in the question's language")

    if not item["answerable"]:
        if item["category"] != "unanswerable" or item["file"] is not None or item["pages"] or item["must_contain"]:
            problems.append(f"{where}: unanswerable items need category unanswerable, file null, "
                            "pages [] and must_contain []")
        keywords = UNANSWERABLE_KEYWORDS.get(item["question"])
        if not keywords:
            problems.append(f"{where}: no key words listed in UNANSWERABLE_KEYWORDS for this question")
        for word in keywords or []:
            for name, doc in docs.items():
                if any(word.lower() in text.lower() for text in doc.pages.values()):
                    problems.append(f"{where}: key word {word!r} of an unanswerable question occurs in {name}")
        return problems

    if item["category"] == "unanswerable":
        problems.append(f"{where}: answerable item with category unanswerable")
    name = item["file"]
    if name not in docs or name not in SET_FILES[lang]:
        problems.append(f"{where}: file {name!r} is not one of {sorted(SET_FILES[lang])}")
        return problems
    doc = docs[name]
    pages = item["pages"]
    if not pages or any(not isinstance(p, int) or isinstance(p, bool) or p not in doc.pages for p in pages):
        problems.append(f"{where}: pages {pages} not within 1..{max(doc.pages)} of {name}")
        return problems
    if pages != sorted(set(pages)):
        problems.append(f"{where}: pages must be sorted and unique")
    phrases = item["must_contain"]
    if not phrases or any(not isinstance(p, str) or not norm(p) for p in phrases):
        problems.append(f"{where}: must_contain needs at least one non-empty phrase")
        return problems
    for phrase in phrases:
        if len(norm(phrase)) > 40:
            problems.append(f"{where}: must_contain phrase too long: {phrase!r}")
        if not any(norm(phrase) in norm(doc.pages[p]) for p in pages):
            found = [p for p in doc.pages if norm(phrase) in norm(doc.pages[p])]
            problems.append(f"{where}: {phrase!r} not on pages {pages} of {name} (found on {found or 'none'})")
    for page in pages:
        if not any(norm(phrase) in norm(doc.pages[page]) for phrase in phrases):
            problems.append(f"{where}: listed page {page} holds none of the must_contain phrases")
    if item["category"] == "multi-passage":
        hits = {i for i, (_, text) in enumerate(doc.passages) for phrase in phrases if norm(phrase) in norm(text)}
        if len(hits) < 2:
            problems.append(f"{where}: multi-passage evidence should lie in two passages, found {len(hits)}")
    if item["category"] == "paraphrase":
        evidence = [text for page, text in doc.passages
                    if any(norm(phrase) in norm(text) for phrase in phrases)]
        if not evidence:
            problems.append(f"{where}: no evidence passage found for the paraphrase check")
        for text in evidence:
            shared = shared_words(item["question"], text, "en" if english_question else "ja")
            if shared:
                problems.append(f"{where}: paraphrase shares {sorted(shared)} with its evidence passage")
    return problems


def check_documents(docs: dict[str, Doc]) -> list[str]:
    problems = []
    pdf = docs["work-rules.pdf"]
    for word in PDF_FORBIDDEN:
        for page, text in pdf.pages.items():
            if word in text:
                problems.append(f"work-rules.pdf: forbidden word {word!r} on page {page}")
    for page, text in pdf.pages.items():
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines or lines[0] != PDF_RUNNING_HEADER or lines[-1] != f"- {page} -":
            problems.append(f"work-rules.pdf: page {page} lacks the running header or the page number")
    return problems


def check_readme(items: list[dict]) -> list[str]:
    """samples/README.md is indexed with the samples (`kotae index samples`): it must not become evidence."""
    path = HERE / "README.md"
    if not path.exists():
        return []
    text = norm(path.read_text(encoding="utf-8")).lower()
    words = set(PDF_FORBIDDEN)
    for item in items:
        words.update(p for p in item.get("must_contain") or [] if isinstance(p, str))
        words.update(UNANSWERABLE_KEYWORDS.get(item.get("question", ""), []))
    return [f"README.md contains {w!r} (a golden phrase or key word)" for w in sorted(words)
            if norm(w).lower() in text]


USER_SETS = {"golden-users-ja.jsonl": ("ja", "uja"), "golden-users-en.jsonl": ("en", "uen"),
             "golden-users2-ja.jsonl": ("ja", "uc"), "golden-users2-en.jsonl": ("en", "ucen"),  # users2: written later, before the workplace synonyms
             "golden-users3-ja.jsonl": ("ja", "u3"), "golden-users3-en.jsonl": ("en", "u3en"),  # users3: before they were turned on
             "golden-users4-en.jsonl": ("en", "u4en")}  # users4: before the JMdict lexicon was measured on it
USER_MINIMUM = {"golden-users-ja.jsonl": {"total": 45, "paraphrase": 5, "cross-lingual": 3, "table": 5,
                                          "cross-page": 4, "colloquial": 8, "synonym": 5},
                "golden-users-en.jsonl": {"total": 20, "cross-lingual": 6, "table": 4, "colloquial": 3, "synonym": 3},
                "golden-users2-ja.jsonl": {"total": 25, "paraphrase": 3, "colloquial": 10, "synonym": 5},
                "golden-users2-en.jsonl": {"total": 6, "cross-lingual": 6},
                "golden-users3-ja.jsonl": {"total": 28, "paraphrase": 3, "colloquial": 20, "cross-lingual": 4},
                "golden-users3-en.jsonl": {"total": 8, "cross-lingual": 8},
                "golden-users4-en.jsonl": {"total": 20, "cross-lingual": 20}}


def read_jsonl(path: Path, problems: list[str]) -> list[tuple[int, object]]:
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            problems.append(f"{path.name}:{number}: empty line")
            continue
        try:
            items.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}:{number}: invalid JSON ({exc})")
    return items


def check_users(docs: dict[str, Doc]) -> list[str]:
    """golden-users-ja/en.jsonl: the rules of check_golden_users plus the paraphrase and README checks."""
    import check_golden_users as users

    problems: list[str] = []
    texts = {name: list(doc.pages.values()) for name, doc in docs.items()}
    for set_name, (lang, prefix) in USER_SETS.items():
        items = read_jsonl(HERE / set_name, problems)

        def check(item, where, lang=lang, prefix=prefix):
            doc = docs.get(item.get("file")) if isinstance(item.get("file"), str) else None
            found = users.check_user_item(item, lang, lambda n: docs[n].pages if n in docs else None,
                                          lambda n: docs[n].units, where, prefix,
                                          users.USER_UNANSWERABLE_KEYWORDS)
            if not found and doc is not None and item.get("category") == "paraphrase":
                phrases = item["must_contain"]
                for _, text in doc.passages:
                    if any(norm(p) in norm(text) for p in phrases):
                        shared = shared_words(item["question"], text, lang)
                        if shared:
                            found.append(f"{where}: paraphrase shares {sorted(shared)} with its evidence passage")
            return found

        found, counts = users.check_user_set(items, set_name, check, USER_MINIMUM[set_name])
        problems += found
        dicts = [it for _, it in items if isinstance(it, dict)]
        problems += users.keyword_problems(dicts, texts, set_name, users.USER_UNANSWERABLE_KEYWORDS)
        readme = check_readme(dicts)
        readme += [f"README.md contains {w!r} (a golden key word)" for it in dicts
                   for w in users.USER_UNANSWERABLE_KEYWORDS.get(str(it.get("question")), [])
                   if norm(w).lower() in norm((HERE / "README.md").read_text(encoding="utf-8")).lower()]
        problems += readme
        splits = Counter(it.get("split") for it in dicts)
        summary = ", ".join(f"{c} {counts[c]}" for c in sorted(users.USER_CATEGORIES))
        print(f"{set_name}: {len(dicts)} items ({summary}; fit {splits['fit']}, held-out {splits['held-out']})")
    return problems


def main() -> int:
    docs = load_documents()
    problems = check_documents(docs)
    for set_name, lang in SETS.items():
        path = HERE / set_name
        items = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                problems.append(f"{set_name}:{number}: empty line")
                continue
            try:
                items.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                problems.append(f"{set_name}:{number}: invalid JSON ({exc})")
        ids = Counter(item.get("id") for _, item in items)
        problems += [f"{set_name}: duplicate id {i}" for i, n in ids.items() if n > 1]
        questions = Counter(item.get("question") for _, item in items)
        problems += [f"{set_name}: duplicate question {q}" for q, n in questions.items() if n > 1]
        for number, item in items:
            if not isinstance(item, dict):
                problems.append(f"{set_name}:{number}: not a JSON object")
                continue
            problems += check_item(item, lang, docs, f"{set_name}:{number} ({item.get('id')})")
        counts = Counter(item.get("category") for _, item in items)
        for category, minimum in MINIMUM[lang].items():
            have = len(items) if category == "total" else counts[category]
            if have < minimum:
                problems.append(f"{set_name}: {have} {category} items, at least {minimum} wanted")
        if lang == "ja":
            required = [item for _, item in items if item.get("question", "").rstrip("。？?") == REQUIRED_JA]
            if len(required) != 1 or required[0].get("category") != "paraphrase":
                problems.append(f"{set_name}: 「{REQUIRED_JA}」 must appear once, as a paraphrase item")
        summary = ", ".join(f"{c} {counts[c]}" for c in sorted(CATEGORIES))
        print(f"{set_name}: {len(items)} items ({summary})")
        problems += check_readme([item for _, item in items if isinstance(item, dict)])
    problems += check_users(docs)
    for problem in problems:
        print("PROBLEM", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
