"""Ruled lines taken out of a page image before OCR.

Tesseract reads a scanned table poorly: its cell borders join the text into large connected shapes, and on a
ruled page it may return a line or two of a whole table (bench/ocr_rules.py). Here a page's long straight dark
runs, horizontal and vertical (a table's rules, a form's boxes, underlines), are found in the grey image and
whitened, and the page is binarised at a fixed level so that text on a tinted cell stays dark on white. Pure
numpy: a grey image in, a cleaned one and the rules as segments out (or None when the page draws no rules).
"""

from __future__ import annotations

import numpy as np

from kotae.ingest.pdf_ruled import Rule

__all__ = ["DARK", "MIN_RUN", "MIN_SHARE", "RUN", "THICK", "rule_mask", "without_rules"]

DARK = 160  # grey level under which a pixel is ink
RUN = 0.08  # a rule is a dark run at least this share of the page's shorter side (~0.66 in on A4 at any dpi: longer
# than a slide title's strokes, shorter than any border of a table of three rows)
BLOCK = 256  # rows scanned for runs at once (memory stays a few MB a block on a page of 40 million pixels)
MIN_RUN = 50  # pixels: never shorter (a small image's glyph strokes are no rules)
THICK = 0.006  # a rule is at most this share of the shorter side thick (~3 pt on A4), else it is a bar
MIN_SHARE = 0.003  # a page whose rules cover less than this share of it is read as it is (one rule under a
# heading covers ~0.0015 of an A4 page; a table of three rows and three columns ~0.005)


def _runs(dark: np.ndarray, length: int) -> np.ndarray:
    """Pixels that lie on a horizontal run of at least `length` dark pixels (rows of `dark`)."""
    out = np.zeros_like(dark)
    if dark.shape[1] < length:
        return out
    rows = np.flatnonzero(np.count_nonzero(dark, axis=1) >= length)  # only these can hold such a run
    for start in range(0, len(rows), BLOCK):  # in blocks: the sums are int32, 4 bytes a pixel
        part = rows[start:start + BLOCK]
        out[part] = _row_runs(dark[part], length)
    return out


def _row_runs(dark: np.ndarray, length: int) -> np.ndarray:
    h, w = dark.shape
    cs = np.zeros((h, w + 1), np.int32)
    np.cumsum(dark, axis=1, dtype=np.int32, out=cs[:, 1:])
    full = (cs[:, length:] - cs[:, :-length]) == length  # (h, w - length + 1): a run starts at each True
    starts = np.zeros((h, full.shape[1] + 1), np.int32)
    np.cumsum(full, axis=1, dtype=np.int32, out=starts[:, 1:])
    # pixel j is covered when a run starts in [j - length + 1, j]: count those starts from padded sums
    padded = np.concatenate([np.zeros((h, length - 1), np.int32), starts,
                             np.repeat(starts[:, -1:], length - 1, axis=1)], axis=1)
    return (padded[:, length:length + w] - padded[:, :w]) > 0


def rule_mask(gray: np.ndarray) -> np.ndarray:
    """The pixels of the image's long, thin horizontal and vertical dark runs (its rules; a filled bar or block
    is no rule)."""
    side = min(gray.shape)
    across, down = _lines(gray < DARK, max(MIN_RUN, int(RUN * side)), max(3, int(THICK * side)))
    return across | down


def _lines(dark: np.ndarray, length: int, thick: int) -> tuple[np.ndarray, np.ndarray]:
    across = _runs(dark, length)
    across &= ~_runs(across.T, thick + 1).T  # a stack of long runs taller than a rule: a bar, not a line
    down = _runs(dark.T, length).T
    down &= ~_runs(down, thick + 1)
    return across, down


def without_rules(gray: np.ndarray) -> tuple[np.ndarray, list[Rule]] | None:
    """The page binarised (ink black, the rest white) with its rules whitened, and the rules as segments in
    pixels (for the drawn tables, kotae.ingest.pdf_ruled); None when its rules cover under MIN_SHARE of it."""
    gray = np.asarray(gray)
    if gray.ndim != 2 or not gray.size:
        return None
    side = min(gray.shape)
    dark = gray < DARK
    across, down = _lines(dark, max(MIN_RUN, int(RUN * side)), max(3, int(THICK * side)))
    mask = across | down
    if mask.mean() < MIN_SHARE:
        return None
    out = np.where(dark, 0, 255).astype(np.uint8)
    out[mask] = 255
    return out, _segments(across, True) + _segments(down.T, False)


def _segments(mask: np.ndarray, horizontal: bool) -> list[Rule]:
    """The runs of a line mask (rows of `mask`) as rules: a run's rows that touch are one rule at their middle."""
    rules: list[Rule] = []
    open_runs: dict[tuple[int, int], tuple[int, int]] = {}  # (start, end) → (first row, last row)
    for row in np.flatnonzero(mask.any(axis=1)).tolist() + [-2]:
        runs: set[tuple[int, int]] = set()
        if row >= 0:
            edges = np.flatnonzero(np.diff(np.r_[0, mask[row].astype(np.int8), 0]))
            runs = {(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)}
        for run, (first, last) in list(open_runs.items()):
            if last == row - 1 and any(a < run[1] and run[0] < b for a, b in runs):
                continue
            del open_runs[run]
            rules.append(Rule(horizontal, (first + last) / 2, float(run[0]), float(run[1])))
        for run in runs:
            old = next((r for r in open_runs if r[0] < run[1] and run[0] < r[1]), None)
            if old is not None:
                first, _ = open_runs.pop(old)
                open_runs[(min(old[0], run[0]), max(old[1], run[1]))] = (first, row)
            else:
                open_runs[run] = (row, row)
    return rules
