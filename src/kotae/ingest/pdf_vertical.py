"""Vertical Japanese on a PDF page: detected from character steps, read right to left (pure)."""

from __future__ import annotations

import itertools
from statistics import median

from kotae.ingest.pdf_chars import Char

VERTICAL_SHARE = 0.6  # share of character steps going down that makes a page vertical
VERTICAL_MIN = 20
VERTICAL_SAMPLE = 600  # characters looked at


def is_vertical(chars: list[Char]) -> bool:
    """Most steps from one visible character to the next go down the page, not across it."""
    seen = [c for c in chars if not c.text.isspace()][:VERTICAL_SAMPLE]
    down = across = 0
    for a, b in itertools.pairwise(seen):
        height = max(1.0, a.y1 - a.y0)
        if b.y1 <= a.y0 + 0.3 * height and abs((b.x0 + b.x1) - (a.x0 + a.x1)) / 2 < 0.5 * height:
            down += 1
        elif b.x0 >= a.x1 - 0.3 * height and abs((b.y0 + b.y1) - (a.y0 + a.y1)) / 2 < 0.5 * height:
            across += 1
    return down >= VERTICAL_MIN and down >= VERTICAL_SHARE * (down + across)


def vertical_text(chars: list[Char]) -> str:
    """Vertical lines read right to left within tiers, tiers top to bottom, each line top down."""
    seen = [c for c in chars if not c.text.isspace()]
    if not seen:
        return ""
    height = median(c.y1 - c.y0 for c in seen) or 1.0
    columns: list[list[Char]] = []
    for c in sorted(seen, key=lambda c: -(c.x0 + c.x1)):
        mid = (c.x0 + c.x1) / 2
        if columns and abs(mid - (columns[-1][0].x0 + columns[-1][0].x1) / 2) < 0.5 * height:
            columns[-1].append(c)
        else:
            columns.append([c])
    runs: list[list[Char]] = []
    for column in columns:
        column.sort(key=lambda c: -c.y1)
        run = [column[0]]
        for c in column[1:]:
            if run[-1].y0 - c.y1 > 2 * height:
                runs.append(run)
                run = []
            run.append(c)
        runs.append(run)
    tiers: list[tuple[float, float, list[list[Char]]]] = []  # (top, bottom, runs)
    for run in sorted(runs, key=lambda r: -r[0].y1):
        top, bottom = run[0].y1, run[-1].y0
        for i, (t, b, members) in enumerate(tiers):
            if top > b and bottom < t:  # overlaps this tier's height
                tiers[i] = (max(t, top), min(b, bottom), members + [run])
                break
        else:
            tiers.append((top, bottom, [run]))
    out = []
    for _, _, members in sorted(tiers, key=lambda t: -t[0]):
        for run in sorted(members, key=lambda r: -(r[0].x0 + r[0].x1)):
            out.append("".join(c.text for c in run))
    return "\n".join(out)
