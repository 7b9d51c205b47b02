"""Rules for the "as users ask" golden sets (golden-users-ja/en.jsonl here, bench/golden/users-real.jsonl).

`python samples/check_golden.py` runs these on the two sample sets; `python bench/golden/check.py` runs
them on the real-document set. On top of the fields of golden-ja/en, each item has `split` ("fit" or
"held-out"), assigned alternately within each category in file order (the first of a category is
"fit"), and a category from USER_CATEGORIES:

  lookup        the document's own wording (a control)
  colloquial    casual register or slang (有休, バイト, クビ, "can i ...")
  synonym       a key term replaced by a synonym (給与 for 賃金, 休日出勤 for 休日労働, "side gig")
  paraphrase    shares no content word with its evidence passage (checked, as in golden-ja/en)
  cross-lingual the question's language differs from the evidence's
  table         the answer sits in one row or cell of a table (CSV row, .docx table, PDF table or list)
  cross-page    the evidence spans consecutive pages (an article running over a page break)
  unanswerable  near the documents' domain, but not answered by them (key words checked)

The checks here are pure: page texts and the units a phrase must sit in come in as arguments.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

USER_FIELDS = ["id", "question", "answerable", "category", "file", "pages", "must_contain", "answer", "split"]
USER_CATEGORIES = {"lookup", "colloquial", "synonym", "paraphrase", "cross-lingual", "table", "cross-page",
                   "unanswerable"}
SPLITS = ("fit", "held-out")
MAX_UNANSWERABLE_SHARE = 0.10

_WS = re.compile(r"\s+")
_JA_CHAR = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")

# Key words of each unanswerable question: none may occur in any document of its set (case-insensitive).
USER_UNANSWERABLE_KEYWORDS = {
    "誕生日に休暇はもらえますか。": ["誕生日", "バースデー", "birthday"],
    "社員持株会はありますか。": ["持株", "持ち株", "stock"],
    "インフルエンザの予防接種を会社で受けられますか。": ["予防接種", "ワクチン", "インフルエンザ", "vaccin"],
    "喫煙所はどこにありますか。": ["喫煙", "たばこ", "タバコ", "smok"],
    "Does the company offer sabbaticals?": ["sabbatical", "サバティカル"],
    "Are coworking space fees reimbursed?": ["coworking", "co-working", "コワーキング"],
}


def norm(text: str) -> str:
    return _WS.sub("", text)


def expected_splits(items: Sequence[Mapping]) -> list[str]:
    """The split rule: alternate fit / held-out within each category, in file order."""
    seen: Counter[str] = Counter()
    out = []
    for item in items:
        category = str(item.get("category"))
        out.append(SPLITS[seen[category] % 2])
        seen[category] += 1
    return out


def is_english(text: str) -> bool:
    return not _JA_CHAR.search(text)


def check_user_item(item: Mapping, lang: str, pages_of: Callable[[str], Mapping[int, str] | None],
                    units_of: Callable[[str], Sequence[str]], where: str, id_prefix: str,
                    keywords: Mapping[str, Sequence[str]]) -> list[str]:
    """Problems of one item. `pages_of(file)` gives 1-based page -> text (None: unknown file);
    `units_of(file)` the texts a phrase must lie within (a page, a paragraph, one table cell)."""
    keys = [k for k in item if k != "note"]
    if keys != USER_FIELDS:
        return [f"{where}: fields must be {USER_FIELDS} (+ optional note), got {list(item)}"]
    types = {"id": str, "question": str, "answerable": bool, "category": str, "pages": list, "must_contain": list,
             "answer": str, "split": str}
    problems = [f"{where}: {k} must be {t.__name__}" for k, t in types.items() if not isinstance(item[k], t)]
    if "note" in item and not isinstance(item["note"], str):
        problems.append(f"{where}: note must be a string")
    if problems:
        return problems
    if not re.fullmatch(rf"{id_prefix}-\d{{3}}", item["id"]):
        problems.append(f"{where}: id {item['id']!r} should look like {id_prefix}-001")
    if item["category"] not in USER_CATEGORIES:
        problems.append(f"{where}: unknown category {item['category']!r}")
    if item["split"] not in SPLITS:
        problems.append(f"{where}: split must be one of {SPLITS}")
    if not item["question"].strip() or not item["answer"].strip():
        problems.append(f"{where}: empty question or answer")
    english = is_english(item["question"])
    if english != (lang == "en"):
        problems.append(f"{where}: a {lang} item must be asked in {'English' if lang == 'en' else 'Japanese'}")
    if item["answerable"] and english == bool(_JA_CHAR.search(item["answer"])):
        problems.append(f"{where}: the answer must be in the question's language")

    if not item["answerable"]:
        if item["category"] != "unanswerable" or item["file"] is not None or item["pages"] or item["must_contain"]:
            problems.append(f"{where}: unanswerable items need category unanswerable, file null, pages [] and "
                            "must_contain []")
        words = keywords.get(item["question"])
        if not words:
            problems.append(f"{where}: no key words listed for this unanswerable question")
        return problems
    if item["category"] == "unanswerable":
        problems.append(f"{where}: answerable item with category unanswerable")
    name = item["file"]
    pages = pages_of(name) if isinstance(name, str) else None
    if pages is None:
        return problems + [f"{where}: unknown evidence file {name!r}"]
    wanted = item["pages"]
    if not wanted or any(not isinstance(p, int) or isinstance(p, bool) or p not in pages for p in wanted):
        return problems + [f"{where}: pages {wanted} not within 1..{max(pages, default=0)} of {name}"]
    if wanted != sorted(set(wanted)):
        problems.append(f"{where}: pages must be sorted and unique")
    phrases = item["must_contain"]
    if not phrases or any(not isinstance(p, str) or not norm(p) for p in phrases):
        return problems + [f"{where}: must_contain needs at least one non-empty phrase"]
    units = [norm(u) for u in units_of(name)]
    for phrase in phrases:
        n = norm(phrase)
        if len(n) > 40:
            problems.append(f"{where}: must_contain phrase too long: {phrase!r}")
        if not any(n in norm(pages[p]) for p in wanted):
            found = [p for p in pages if n in norm(pages[p])]
            problems.append(f"{where}: {phrase!r} not on pages {wanted} of {name} (found on {found or 'none'})")
        elif not any(n in u for u in units):
            problems.append(f"{where}: {phrase!r} spans two cells or paragraphs of {name}")
    for page in wanted:
        if not any(norm(p) in norm(pages[page]) for p in phrases):
            problems.append(f"{where}: listed page {page} holds none of the must_contain phrases")
    if item["category"] == "cross-page" and (len(wanted) < 2 or wanted != list(range(wanted[0], wanted[-1] + 1))):
        problems.append(f"{where}: cross-page evidence must list two or more consecutive pages")
    evidence_english = is_english("".join(phrases))
    if item["category"] == "cross-lingual" and evidence_english == english:
        problems.append(f"{where}: cross-lingual evidence must be in the other language than the question")
    return problems


def check_user_set(items: Sequence[tuple[int, object]], set_name: str, check: Callable[[Mapping, str], list[str]],
                   minimum: Mapping[str, int]) -> tuple[list[str], Counter[str]]:
    """Set-level checks (ids, duplicates, splits, unanswerable share, minimum counts) plus `check` per item."""
    problems: list[str] = []
    dicts = [(n, it) for n, it in items if isinstance(it, dict)]
    problems += [f"{set_name}:{n}: not a JSON object" for n, it in items if not isinstance(it, dict)]
    for key in ("id", "question"):
        counts = Counter(it.get(key) for _, it in dicts)
        problems += [f"{set_name}: duplicate {key} {v}" for v, c in counts.items() if c > 1]
    for (number, item), split in zip(dicts, expected_splits([it for _, it in dicts]), strict=True):
        where = f"{set_name}:{number} ({item.get('id')})"
        problems += check(item, where)
        if item.get("split") in SPLITS and item.get("split") != split:
            problems.append(f"{where}: split should be {split!r} (alternating within category "
                            f"{item.get('category')!r})")
    counts = Counter(str(it.get("category")) for _, it in dicts)
    if dicts and counts["unanswerable"] > MAX_UNANSWERABLE_SHARE * len(dicts):
        problems.append(f"{set_name}: {counts['unanswerable']} unanswerable items, at most "
                        f"{MAX_UNANSWERABLE_SHARE:.0%} wanted")
    for category, least in minimum.items():
        have = len(dicts) if category == "total" else counts[category]
        if have < least:
            problems.append(f"{set_name}: {have} {category} items, at least {least} wanted")
    return problems, counts


def keyword_problems(items: Sequence[Mapping], texts: Mapping[str, Sequence[str]], set_name: str,
                     keywords: Mapping[str, Sequence[str]]) -> list[str]:
    """Key words of the unanswerable items that occur in a document (`texts`: file -> page texts)."""
    out = []
    for item in items:
        if item.get("answerable") is False:
            for word in keywords.get(str(item.get("question")), []):
                for name, pages in texts.items():
                    if any(word.lower() in t.lower() for t in pages):
                        out.append(f"{set_name} ({item.get('id')}): key word {word!r} occurs in {name}")
    return out
