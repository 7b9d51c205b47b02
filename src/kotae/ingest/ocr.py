"""OCR for pages without a usable text layer: which pages need it (pure), and Tesseract to read them.

Which pages (`needs_ocr`, pure, over the page's text, area and ink):
- no text layer: nothing but whitespace, on a page with ink (a blank page needs nothing);
- an unreadable layer: over GARBAGE_SHARE of its characters are U+FFFD, private-use, control
  characters or pdfminer-style "(cid:123)" codes (fonts without a usable ToUnicode map);
- a broken font mapping that maps every glyph to one character: one letter is over REPEAT_SHARE
  of the letters and digits of a page with at least REPEAT_MIN of them (punctuation is not counted:
  a contents page is mostly leader dots);
- a sparse layer on a scanned page (ink measured only on pages an image covers): under
  MIN_CHARS_PER_INK characters per square inch of ink, e.g. a scanner's "Page 3 / scanned by"
  stamp over a page of text. Real text pages measure 200–2,000 characters per square inch of ink
  (slides with dark backgrounds ~11, and those are not image-covered); the generated A5 test scans
  hold ~560. A sparse page keeps its layer unless OCR reads more characters.

How (measured with bench/ocr.py; README "OCR" has the tables):
- resolution DPI=200: the generated test pages (8–14 pt) read the same at 150, 200 and 300 dpi (CER 0%,
  1.8% for 9-pt vertical text), so the real pages decide. Order-free character error against their own
  text layer, 150/200/300 dpi: pdfminer ja/kampo.pdf (dense vertical text) 5.3/2.7/10.0%, jo.pdf
  (vertical) 2.4/3.4/2.8%, nlp2004slides.pdf (12 slides) 25.8/21.3/35.4%. 300 dpi is both slower and
  worse (tesseract's models are trained on text ~30 px high), 200 is the best overall;
- languages: one pass with "jpn+jpn_vert" under page segmentation mode 3. Tesseract's layout analysis
  finds vertical blocks and the vertical model reads them, so horizontal Japanese, vertical Japanese
  and a page mixing both (a horizontal title over vertical columns) need no separate choice; measured,
  the pair reads each kind as well as the best single model (jpn alone misreads vertical text
  entirely, CER 98%; jpn_vert misreads horizontal, 98%). A page that comes out mostly Latin is read
  again with "eng" (the pair reads English at 1.8% CER, eng at 0%) and the pass with the higher mean
  confidence is kept. OSD (--psm 0) was not used: it names the script but not the writing direction,
  and costs about as much as a pass;
- PSM 3 (fully automatic layout) keeps reading order: blocks top to bottom, vertical columns right
  to left. PSM 5 (one vertical block) and 6 (one horizontal block) lose it on multi-block pages;
- parallel: one tesseract process per core, each limited to one thread (OMP_THREAD_LIMIT=1): pages
  parallelise instead of OpenMP threads fighting over the cores.

The binary is found as $KOTAE_TESSERACT, else `tesseract` on the PATH.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace

import numpy as np
from PIL import Image

from kotae.config import OcrSettings
from kotae.ingest import ocr_rules
from kotae.ingest.fontmap import broken_digits
from kotae.ingest.pdf_ruled import Rule
from kotae.types import PageWords, Section, Word

MODES = ("auto", "always", "off")
DPI = 200
INSTALL = (
    "sudo apt-get install tesseract-ocr tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-eng "
    "(macOS: brew install tesseract tesseract-lang)"
)
JAPANESE = ("jpn", "jpn_vert")
ENGLISH = "eng"
PSM = 3
TIMEOUT_S = 300  # one page; a runaway page fails alone

BLANK_INK = 0.0005  # dark share of a page below which it is blank (no OCR for "no text layer")
GARBAGE_SHARE = 0.10
REPEAT_SHARE = 0.5
REPEAT_MIN = 20
MIN_CHARS_PER_INK = 50.0  # characters per square inch of ink
MIN_INK_AREA = 0.05  # square inches of ink below which a page is not worth reading
LATIN_SHARE = 0.5  # a first pass this Latin is read again with eng

_CID = re.compile(r"\(cid:\d+\)")


# --- which pages need OCR (pure) ---------------------------------------------------------------
def _bad(ch: str) -> bool:
    if ch == "\ufffd":
        return True
    cat = unicodedata.category(ch)
    return cat in ("Co", "Cs") or (cat == "Cc" and ch not in "\t\n\r")


def needs_ocr(text: str, area: float, ink: float | None) -> str | None:
    """Why a page needs OCR ("no text layer", "unreadable text layer (…)", …), or None when its layer is good.

    `area` is the page's area in square inches; `ink` the dark share (0–1) of the rendered page, or
    None when it was not measured (then a short layer is trusted and an empty one is read).
    """
    cids = len(_CID.findall(text))
    chars = [ch for ch in _CID.sub("", text) if not ch.isspace()]
    total = len(chars) + cids
    if total == 0:
        return None if ink is not None and ink < BLANK_INK else "no text layer"
    bad = cids + sum(1 for ch in chars if _bad(ch))
    if bad / total > GARBAGE_SHARE:
        return f"unreadable text layer ({bad / total:.0%} of its characters are not text)"
    letters = [ch for ch in chars if ch.isalnum()]  # not punctuation: a contents page is mostly leader dots
    if len(letters) >= REPEAT_MIN:
        top, n = Counter(letters).most_common(1)[0]
        if n / len(letters) > REPEAT_SHARE:
            return f"broken font mapping ({n / len(letters):.0%} of its letters are {top!r})"
    if digits := broken_digits(text):
        return digits
    if ink is not None and ink * area >= MIN_INK_AREA and total / (ink * area) < MIN_CHARS_PER_INK:
        return f"text layer too sparse for the page ({total} characters for {ink * area:.1f} in² of ink)"
    return None


# --- options and the binary ----------------------------------------------------------------------
@dataclass(frozen=True)
class OcrOptions:
    """How readers OCR: `mode` auto (pages that need it), always (every page) or off."""

    mode: str = "auto"
    tesseract: str = field(default_factory=lambda: os.environ.get("KOTAE_TESSERACT", "tesseract"))
    workers: int = 0  # 0: one per core
    dpi: int = DPI
    on_page: Callable[[int], None] | None = None  # called in the reading thread as each OCR'd page ends

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"ocr={self.mode!r} is not one of {', '.join(MODES)}")


def as_options(ocr: str | OcrOptions) -> OcrOptions:
    return ocr if isinstance(ocr, OcrOptions) else OcrOptions(ocr)


def options_from(settings: OcrSettings, on_page: Callable[[int], None] | None = None) -> OcrOptions:
    """The reader options for the `index.ocr` settings (an unset tesseract: $KOTAE_TESSERACT, else on the PATH)."""
    extra = {"tesseract": settings.tesseract} if settings.tesseract else {}
    return OcrOptions(settings.mode, workers=settings.workers, dpi=settings.dpi, on_page=on_page, **extra)


@dataclass(frozen=True)
class Engine:
    """A working tesseract: its command and the languages it reads with."""

    cmd: str
    first: str  # the first pass, e.g. "jpn+jpn_vert"
    english: str | None  # the second pass for Latin pages, when eng is installed
    notes: tuple[str, ...] = ()  # e.g. missing Japanese data


def find_engine(cmd: str) -> Engine | str:
    """The engine at `cmd`, or why there is none (one line, with the install command)."""
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = cmd  # the binding keeps one global command
    try:
        langs = set(pytesseract.get_languages())
    except (pytesseract.TesseractNotFoundError, OSError):
        return f"tesseract is not installed ({cmd} not found)"
    japanese = [lang for lang in JAPANESE if lang in langs]
    english = ENGLISH if ENGLISH in langs else None
    if not japanese and not english:
        return f"tesseract has none of the {', '.join((*JAPANESE, ENGLISH))} language data"
    missing = [lang for lang in (*JAPANESE, ENGLISH) if lang not in langs]
    note = f"tesseract lacks the {', '.join(missing)} language data, so such text is misread; install it: {INSTALL}"
    notes = (note,) if missing else ()
    return Engine(cmd, "+".join(japanese) or ENGLISH, english if japanese else None, notes)


# --- reading one image ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OcrPage:
    """What tesseract read on one page image: text, word boxes in pixels (offsets into `text`)."""

    text: str
    words: tuple[Word, ...]
    lang: str
    confidence: float  # mean word confidence, 0–100
    width: int
    height: int
    rules: tuple[Rule, ...] = ()  # the ruled lines of the image, in pixels (kotae.ingest.ocr_rules)


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def assemble(rows: Iterable[tuple[tuple[int, int, int], str, float, tuple[int, int, int, int]]],
             width: int, height: int, lang: str) -> OcrPage:
    """Text from tesseract's words in reading order: `((block, paragraph, line), text, confidence, box)`.

    Lines end with "\\n", paragraphs with a blank line; words are joined by a space unless either side
    is a wide (CJK) character — tesseract splits Japanese into one "word" per character or two.
    """
    parts: list[str] = []
    words: list[Word] = []
    confs: list[tuple[float, int]] = []
    at, last_line, last_par = 0, None, None
    for line, text, conf, (x0, y0, x1, y1) in rows:
        text = text.strip()
        if not text:
            continue
        sep = ""
        if last_line is not None and line != last_line:
            sep = "\n\n" if line[:2] != last_par else "\n"
        elif parts and not (_wide(parts[-1][-1]) or _wide(text[0])):
            sep = " "
        parts.append(sep)
        at += len(sep)
        words.append(Word(text, at, at + len(text), x0, y0, x1, y1))
        parts.append(text)
        at += len(text)
        confs.append((conf, len(text)))
        last_line, last_par = line, line[:2]
    n = sum(k for _, k in confs)
    mean = sum(c * k for c, k in confs) / n if n else 0.0
    return OcrPage("".join(parts), tuple(words), lang, mean, width, height)


def read_pass(image, engine: Engine, lang: str) -> OcrPage:  # type: ignore[no-untyped-def]
    """One tesseract pass over a PIL image with languages `lang` ("jpn+jpn_vert", "eng", …)."""
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = engine.cmd
    d = pytesseract.image_to_data(image, lang=lang, config=f"--psm {PSM}", timeout=TIMEOUT_S,
                                  output_type=pytesseract.Output.DICT)
    rows = []
    for i, text in enumerate(d["text"]):
        conf = float(d["conf"][i])
        if conf < 0 or not str(text).strip():
            continue
        x, y, w, h = d["left"][i], d["top"][i], d["width"][i], d["height"][i]
        rows.append(((d["block_num"][i], d["par_num"][i], d["line_num"][i]), str(text), conf, (x, y, x + w, y + h)))
    return assemble(rows, image.width, image.height, lang)


def latin_share(text: str) -> float:
    chars = [ch for ch in text if not ch.isspace()]
    return sum(1 for ch in chars if ch.isascii() and ch.isalpha()) / len(chars) if chars else 0.0


def recognise(image, engine: Engine) -> OcrPage:  # type: ignore[no-untyped-def]
    """Read one page image: the Japanese pass, and the English one too when the page looks Latin. A page that
    draws rules (a table, a form) is read again with them taken out (kotae.ingest.ocr_rules), the reading
    that holds more confidently read text is kept, and the rules come with it (for its drawn tables)."""
    image = image.convert("L")
    page = _languages(image, engine)
    found = ocr_rules.without_rules(np.asarray(image))
    if found is not None:
        cleaned, rules = found
        other = _languages(Image.fromarray(cleaned), engine)
        page = other if _amount(other) > _amount(page) else page
        page = replace(page, rules=tuple(rules))
    return page


def _languages(image, engine: Engine) -> OcrPage:  # type: ignore[no-untyped-def]
    page = read_pass(image, engine, engine.first)
    if engine.english and latin_share(page.text) >= LATIN_SHARE:
        english = read_pass(image, engine, engine.english)
        if english.confidence > page.confidence:
            return english
    return page


def _amount(page: OcrPage) -> float:
    """Characters read, weighted by the page's mean confidence."""
    return sum(not ch.isspace() for ch in page.text) * page.confidence


# --- many pages, in parallel -------------------------------------------------------------------
Loader = Callable[[], object]  # returns a PIL image of the page


def run_pages(jobs: dict[int, Loader], engine: Engine, options: OcrOptions) -> dict[int, OcrPage | str]:
    """OCR each page (number → loader of its image) on a pool of threads, one tesseract process each.

    Returns number → OcrPage, or the one-line reason the page failed. `options.on_page(1)` is called
    in this thread as each page ends.
    """
    if not jobs:
        return {}
    workers = options.workers or os.cpu_count() or 1
    # Tesseract's OpenMP threads would fight the pool over the cores; one process per page is faster.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")

    def one(number: int) -> OcrPage | str:
        import pytesseract

        try:
            return recognise(jobs[number](), engine)
        except pytesseract.TesseractNotFoundError:
            return f"tesseract disappeared ({engine.cmd} not found)"
        except (pytesseract.TesseractError, RuntimeError, OSError, ValueError) as exc:
            return f"OCR failed ({type(exc).__name__}: {str(exc).strip()[:200]})"

    out: dict[int, OcrPage | str] = {}
    with ThreadPoolExecutor(max_workers=min(workers, len(jobs)), thread_name_prefix="ocr") as pool:
        futures = {pool.submit(one, n): n for n in sorted(jobs)}
        for future in as_completed(futures):
            out[futures[future]] = future.result()
            if options.on_page:
                options.on_page(1)
    return out


# --- putting results into a document -----------------------------------------------------------
def page_list(numbers: Iterable[int]) -> str:
    """ "page 3" · "pages 2, 5–7" """
    ns = sorted(set(numbers))
    spans: list[list[int]] = []
    for n in ns:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in spans)
    return ("page " if len(ns) == 1 else "pages ") + text


@dataclass
class OcrOutcome:
    """What OCR did to a document's pages: new raw texts, what was read, and what to tell the user."""

    texts: list[str]
    read: dict[int, OcrPage] = field(default_factory=dict)  # page number → what OCR read (and was kept)
    warnings: list[str] = field(default_factory=list)
    missing: str | None = None  # why tesseract could not run, when pages needed it


def apply_ocr(texts: list[str | None], facts: list[tuple[float, float | None]], load: Callable[[int], Loader],
              options: OcrOptions) -> OcrOutcome:
    """Decide which pages to OCR (by `needs_ocr`, or all with mode "always"), read them, merge the texts.

    `texts` are the raw text layers (None: the page could not be loaded, never OCR'd); `facts` each
    page's (area in square inches, ink share or None); `load(number)` gives a page's image loader.
    """
    out = OcrOutcome([t or "" for t in texts])
    reasons: dict[int, str] = {}
    for n, (text, (area, ink)) in enumerate(zip(texts, facts), start=1):
        if text is None:
            continue
        reason = needs_ocr(text, area, ink)
        if reason or options.mode == "always":
            reasons[n] = reason or "--ocr always"
    if options.mode == "off":
        out.warnings += [f"page {n} has no text layer (scanned image?); the page was skipped "
                         "(OCR is off; pass --ocr auto to read it)" for n, r in reasons.items()
                         if r == "no text layer"]
        return out
    if not reasons:
        return out
    engine = find_engine(options.tesseract)
    if isinstance(engine, str):
        out.missing = engine
        one = len(reasons) == 1
        out.warnings.append(f"{page_list(reasons)} {'needs' if one else 'need'} OCR "
                            f"({'; '.join(sorted(set(reasons.values())))}) but {engine}, so "
                            f"{'it was' if one else 'they were'} not read — install it: {INSTALL}")
        return out
    out.warnings += engine.notes
    results = run_pages({n: load(n) for n in reasons}, engine, options)
    for n, result in sorted(results.items()):
        layer = out.texts[n - 1]
        if isinstance(result, str):
            out.warnings.append(f"page {n}: {result}; " + ("the text layer was kept" if layer.strip()
                                                          else "the page was skipped"))
        elif not result.text.strip():
            if not layer.strip():
                out.warnings.append(f"page {n} has no text layer and OCR found no text on it (a picture?)")
        elif reasons[n].startswith("text layer too sparse") and _size(result.text) <= _size(layer):
            continue  # a picture with a caption: the layer holds what there is
        else:
            out.texts[n - 1] = result.text
            out.read[n] = result
            if reasons[n].startswith("broken font mapping"):
                out.warnings.append(f"page {n}: the text layer has a broken font map ({reasons[n][21:-1]}); "
                                    "the page was read by OCR")
    return out


def _size(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def locate(words: Iterable[Word], page_text: str) -> tuple[Word, ...]:
    """The words with offsets into the cleaned `page_text`: each found after the previous one
    (cleaning only drops and joins, never reorders); -1 for a word cleaning dropped."""
    out, at = [], 0
    for w in words:
        i = page_text.find(w.text, at)
        if i < 0 or i - at > 200:  # not found nearby: the line was dropped (a page number, a header)
            out.append(replace(w, start=-1, end=-1))
        else:
            out.append(replace(w, start=i, end=i + len(w.text)))
            at = i + len(w.text)
    return tuple(out)


def page_words(number: int, page: OcrPage, page_text: str, scale: float = 1.0, unit: str = "px") -> PageWords:
    """A page's word boxes for the store: offsets into its cleaned text, boxes times `scale` in `unit`."""
    words = tuple(replace(w, x0=round(w.x0 * scale, 2), y0=round(w.y0 * scale, 2), x1=round(w.x1 * scale, 2),
                          y1=round(w.y1 * scale, 2)) for w in locate(page.words, page_text))
    return PageWords(number, round(page.width * scale, 2), round(page.height * scale, 2), unit, page.lang, words)


def mark_ocr(sections: Iterable[Section], pages: set[int]) -> list[Section]:
    """The sections, those on `pages` marked as OCR'd."""
    return [replace(s, ocr=True) if s.page in pages else s for s in sections]
