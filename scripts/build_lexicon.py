"""Build kotae's English ↔ Japanese keyword lexicon from JMdict (EDRDG, CC BY-SA 3.0).

    pip download --no-deps jamdict-data==1.5 && tar xzf jamdict_data-1.5.tar.gz && xz -dk jamdict_data-1.5/jamdict_data/jamdict.db.xz
    python scripts/build_lexicon.py jamdict_data-1.5/jamdict_data/jamdict.db [--common-only] [--out PATH]

Writes src/kotae/data/lexicon/en-ja.tsv.gz: one line per English gloss of a common Japanese word,
`english tokens <TAB> japanese tokens <TAB> japanese tokens ...`, the Japanese words best first, each as the
search tokens kotae's analyser makes of it (stemmed lower-case English; Sudachi SplitMode.A normalised forms).
Words JMdict marks common (news1/2, ichi1/2, spec1/2, gai1/2) are kept with all their glosses, one written form
per entry (its first common kanji form, else its first common kana form); the other entries (their first kanji
form, else kana) only through glosses of two or three words, which name one thing ("extension number" → 内線番号,
"overtime work" → 時間外労働, "paid vacation" → 有給休暇), after every common word of the same gloss
(`--common-only`: the common words alone, the lexicon before 2026-12-05); glosses of more than three words, and glosses with a stop
word (beyond a leading article: "at any rate" is not "rate"), are dropped. Order: the gloss's sense in the entry first (a word's first sense is
what it usually means), then native words before katakana loanwords of the same sense (給与 before ペイ for
pay), then the gloss's place in its sense, then how common the word is. Re-run it when the analyser changes: the tokens
must be those the index holds.
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import sqlite3
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from kotae.search.analyze import analyze

OUT = os.path.join(ROOT, "src", "kotae", "data", "lexicon", "en-ja.tsv.gz")
COMMON = {"news1": 2, "ichi1": 2, "spec1": 2, "gai1": 2, "news2": 1, "ichi2": 1, "spec2": 1, "gai2": 1}
PER_PHRASE = 6  # Japanese words kept per English gloss (the search takes its first few: search.translations)
MAX_WORDS = 3
_PAREN = re.compile(r"\([^)]*\)")
_KATAKANA = re.compile(r"[\u30a0-\u30ff]+")  # a loanword comes after native words of the same sense


def headwords(db: sqlite3.Connection) -> dict[int, tuple[str, int]]:
    """entry → (its first common kanji form, else its first common kana form; how common it is: 2 or 1)."""
    out: dict[int, tuple[str, int]] = {}
    for table, prio in (("Kanji", "KJP"), ("Kana", "KNP")):
        levels: dict[int, tuple[int, str, int]] = {}  # form id → (entry, text, commonness)
        for idseq, fid, text, tag in db.execute(
                f"SELECT f.idseq, f.ID, f.text, p.text FROM {table} f JOIN {prio} p ON p.kid = f.ID"):
            level = max(COMMON.get(tag, 0), levels.get(fid, (0, "", 0))[2])
            if level:
                levels[fid] = (idseq, text, level)
        for fid in sorted(levels):
            idseq, text, level = levels[fid]
            out.setdefault(idseq, (text, level))  # kanji forms were read first
    return out


def gloss_phrase(gloss: str) -> str:
    text = _PAREN.sub(" ", gloss).strip().lower()
    text = re.sub(r"^to ", "", text)
    return " ".join(text.split())


def other_headwords(db: sqlite3.Connection) -> dict[int, tuple[str, int]]:
    """entry → (its first kanji form, else its first kana form; 0): every entry, common or not."""
    out: dict[int, tuple[str, int]] = {}
    for table in ("Kanji", "Kana"):
        for idseq, text in db.execute(f"SELECT idseq, text FROM {table} ORDER BY ID"):
            out.setdefault(idseq, (text, 0))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("db", help="jamdict.db (jamdict-data 1.5)")
    ap.add_argument("--common-only", action="store_true", help="only words JMdict marks common")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    heads = headwords(db)
    if not args.common_only:
        heads = {**other_headwords(db), **heads}
    senses: dict[int, list[int]] = defaultdict(list)
    for sid, idseq in db.execute("SELECT ID, idseq FROM Sense ORDER BY ID"):
        if idseq in heads:
            senses[idseq].append(sid)
    order = {sid: i for sids in senses.values() for i, sid in enumerate(sids)}
    entry_of = {sid: e for e, sids in senses.items() for sid in sids}
    ja_tokens: dict[str, str] = {}
    cands: dict[str, dict[str, tuple[bool, int, bool, int, int]]] = defaultdict(dict)  # en tokens → ja tokens → rank key
    place: dict[int, int] = defaultdict(int)
    for sid, gloss in db.execute("SELECT sid, text FROM SenseGloss WHERE lang = 'eng' ORDER BY rowid"):
        e = entry_of.get(sid)
        if e is None:
            continue
        g = place[sid]
        place[sid] += 1
        phrase = gloss_phrase(gloss)
        if not phrase or len(phrase.split()) > MAX_WORDS or any(c in phrase for c in ";/,.!?"):
            continue
        if heads[e][1] == 0 and len(phrase.split()) < 2:
            continue  # a word not marked common, through a one-word gloss: too many senses of common words
        tokens = analyze(phrase)
        if len(tokens) != len([w for w in phrase.split() if w not in ("a", "an", "the")]):
            continue  # a stop word dropped: "at any rate" is not "rate", "these days" not "day"
        en = " ".join(tokens)
        text, level = heads[e]
        if text not in ja_tokens:
            ja_tokens[text] = " ".join(analyze(text))
        ja = ja_tokens[text]
        if not en or not ja or en == ja:
            continue
        key = (level == 0, order[sid], _KATAKANA.fullmatch(text) is not None, g, -level)
        old = cands[en].get(ja)
        if old is None or key < old:
            cands[en][ja] = key
    lines = []
    for en in sorted(cands):
        best = sorted(cands[en], key=lambda ja: (cands[en][ja], ja))[:PER_PHRASE]
        lines.append("\t".join([en, *best]))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(heads)} entries, {len(lines)} English phrases → {args.out} ({os.path.getsize(args.out)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
