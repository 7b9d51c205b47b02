"""Tables on a PDF page, found from word boxes: ruled or not, numeric statements or text grids.

Pure functions, plain data in and out: words → lines → cells (words split by wide gaps) → table
regions (runs of lines with several aligned cells) → columns (x ranges the rows' cells cover) →
multi-row column headers (the lines above the first row that hold no row label) → title (the heading
line above) → rows `label | column: value | column: value`, rendered with `tables.render_row`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kotae.ingest.tables import render_row

GAP_EM = 0.9  # a gap this many font sizes wide separates two cells, not two words
MIN_ROWS = 3  # fewer aligned lines than this are not a table
MAX_CELL = 48  # a value cell longer than this is prose, not a table cell
MAX_HEADER_LINES = 6
LINE_GAP = 2.6  # a vertical gap of this many line heights ends a table
RUN_CENTRE = 0.15  # a header cell over a run of columns sits this close (share of the run's width) to its middle
SPAN_PITCH = 1.9  # two rows closer than this many font sizes (centre to centre) leave no room for a row between
SPAN_GAP = 0.3  # a spanning cell fills the space between its two rows: gaps above and below under this many sizes
# the lines of a statement's header may stand above group labels in the label column ("December 31, 2022 March 31,
# 2023" over "ASSETS" and "Current assets:" over the first row): up to this many are passed over to find them
GROUP_LABELS = True
MAX_GROUP_LABELS = 3
HEADER_GAP = 1.5  # a lone line this many sizes above a statement's header is no header row (a running line)
_NUMBER = re.compile(r"^[(\-–—−+]?[$€£¥]?\(?[\d][\d,.]*\)?%?$|^[—–\-−]+$|^\(?\d[\d,.]*\)?%$|^n/?a$", re.IGNORECASE)
_CURRENCY = {"$", "€", "£", "¥", "US$"}
_UPPER_SHARE = 0.7
_YEAR = re.compile(r"^(19|20)\d\d$")
_NOTE = re.compile(r"^\([^\d]*\)$")
_TIGHT = re.compile(r"(?<=\d) (\))|(?<=\() (?=\d)")


@dataclass(frozen=True)
class Word:
    """One word and its box, origin at the page's top left, in points."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float = 10.0  # font size


@dataclass(frozen=True)
class Cell:
    text: str
    x0: float
    x1: float


@dataclass(frozen=True)
class Line:
    words: tuple[Word, ...]
    y0: float
    y1: float

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def size(self) -> float:
        sizes = sorted(w.size for w in self.words)
        return sizes[len(sizes) // 2] if sizes else 10.0


@dataclass(frozen=True)
class Table:
    """A table found on a page: its title, one header per column ("" for the row labels), the rows
    (label first) and the words of its lines, so the page text can be matched to it."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    source: tuple[str, ...]  # the text of the region's lines, top to bottom (header lines included)
    drawn: bool = False  # read from the rules the page draws (kotae.ingest.pdf_ruled)
    columns: tuple[float, ...] = ()  # a drawn table's column boundaries, left to right (points)
    head: tuple[tuple[str, ...], ...] = ()  # a drawn table's rows taken as its header, as they read

    def lines(self) -> list[str]:
        """Each row as "label | column: value | column: value"."""
        return [text for row in self.rows if (text := render_row(list(self.header), list(row)))]


def lines_from_words(words: list[Word]) -> list[Line]:
    """Words grouped into lines (vertical overlap of at least half the smaller height), top to bottom."""
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.y0 + w.y1) / 2):
        if lines:
            last = lines[-1]
            top, bottom = min(x.y0 for x in last), max(x.y1 for x in last)
            overlap = min(bottom, w.y1) - max(top, w.y0)
            if overlap >= 0.5 * min(bottom - top, w.y1 - w.y0):
                last.append(w)
                continue
        lines.append([w])
    out = [Line(tuple(sorted(ws, key=lambda w: w.x0)), min(w.y0 for w in ws), max(w.y1 for w in ws))
           for ws in lines]
    return out


def cells(line: Line) -> list[Cell]:
    """The line's words joined into cells; a gap wider than GAP_EM font sizes starts a new cell.
    A lone currency sign joins the number after it."""
    out: list[list[Word]] = []
    for w in line.words:
        after_sign = bool(out) and len(out[-1]) == 1 and out[-1][0].text in _CURRENCY
        close = bool(out) and w.text not in _CURRENCY and \
            w.x0 - out[-1][-1].x1 < GAP_EM * max(w.size, out[-1][-1].size)
        if after_sign or close:
            out[-1].append(w)
        else:
            out.append([w])
    return [Cell(_join(ws), ws[0].x0, ws[-1].x1) for ws in out]


def _join(words: list[Word]) -> str:
    if len(words) == 2 and words[0].text in _CURRENCY:
        return words[0].text + words[1].text
    return _TIGHT.sub(r"\1", " ".join(w.text for w in words))


def is_number(text: str) -> bool:
    """A figure as tables print it: 63,355 · (10) · $ 1.20 · 12 % · — (nil)."""
    return bool(_NUMBER.match(text.replace(" ", "")))


PROSE_WORDS = 4  # a cell of this many words that starts in lower case continues a sentence of a text column


def _running_text(c: Cell) -> bool:
    """A cell that reads as a line of running text in a column (a sentence going on from the line above)."""
    return len(c.text.split()) >= PROSE_WORDS and c.text[:1].isascii() and c.text[:1].islower()


def _kind(line_cells: list[Cell]) -> str:
    """"row" (a label or value and figures), "grid" (three or more short cells) or "text"."""
    rest = line_cells[1:]
    if len(line_cells) < 2 or any(len(c.text) > MAX_CELL for c in rest) or any(
            ". . ." in c.text or set(c.text) <= {".", " "} for c in line_cells):
        return "text"  # prose, or a table of contents' dot leaders
    if sum(_running_text(c) for c in line_cells) >= 2:
        return "text"  # a line across two or more text columns (i1040nr.pdf's three), not a table row
    if any(is_number(c.text) for c in line_cells):
        return "row"
    return "grid" if len(line_cells) >= 3 else "text"


def _regions(lines: list[Line], kinds: list[str]) -> list[tuple[int, int]]:
    """[first, stop) spans of lines that hold at least MIN_ROWS row or grid lines, label lines between."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if kinds[i] == "text":
            i += 1
            continue
        first, last, count = i, i, 1
        j = i + 1
        while j < len(lines) and lines[j].y0 - lines[j - 1].y1 < LINE_GAP * lines[j - 1].size:
            if kinds[j] != "text":
                last, count = j, count + 1
            elif j - last > 2 or len(lines[j].text) > 3 * MAX_CELL:
                break
            j += 1
        if count >= MIN_ROWS:
            spans.append((first, last + 1))
        i = last + 1
    return spans


def _columns(rows: list[list[Cell]]) -> list[tuple[float, float]]:
    """x ranges covered by the cells of more than a tenth of the rows (1-point bins)."""
    left = min(c.x0 for r in rows for c in r)
    right = max(c.x1 for r in rows for c in r)
    cover = [0] * (int(right - left) + 2)
    for r in rows:
        for c in r:
            for b in range(int(c.x0 - left), int(c.x1 - left) + 1):
                cover[b] += 1
    floor = len(rows) // 10
    out: list[tuple[float, float]] = []
    start = None
    for b, n in enumerate([*cover, 0]):
        if n > floor and start is None:
            start = b
        elif n <= floor and start is not None:
            out.append((left + start, left + b))
            start = None
    return out


def _column_of(cell: Cell, columns: list[tuple[float, float]]) -> int:
    def overlap(col: tuple[float, float]) -> float:
        return min(cell.x1, col[1]) - max(cell.x0, col[0])

    return max(range(len(columns)), key=lambda k: overlap(columns[k]))


def _spanned(cell: Cell, columns: list[tuple[float, float]]) -> list[int]:
    """Columns a header cell stands over: those it overlaps by 30 % of the narrower of the two."""
    out = []
    for k, (a, b) in enumerate(columns):
        overlap = min(cell.x1, b) - max(cell.x0, a)
        if overlap > 0 and overlap >= 0.3 * min(b - a, cell.x1 - cell.x0):
            out.append(k)
    return out or [_column_of(cell, columns)]


def _is_title(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) < 4:
        return False
    return sum(ch.isupper() for ch in letters) / len(letters) >= _UPPER_SHARE


def _title(lines: list[Line], top: int) -> str:
    """The nearest all-capitals line among the four above the table, else the short line right above."""
    for i in range(top - 1, max(-1, top - 5), -1):
        if _is_title(lines[i].text):
            return lines[i].text
    if top > 0:
        above = lines[top - 1].text
        if (len(above.split()) <= 10 and not above.rstrip().endswith((".", ",", ";"))
                and sum(ch.isalpha() for ch in above) >= 3):  # not "2023:", the end of a wrapped lead-in
            return above
    return ""


def _overlaps(a: Cell, b: Cell) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1


def _center(line: Line) -> float:
    return (line.y0 + line.y1) / 2


def _spans(body: list[Line], split: list[list[Cell]], i: int) -> bool:
    """Whether line `i` holds cells that span the two rows around it: it sits half way between them and
    fills the space between them, the two are closer than two lines of text apart (so `i` is no row of its
    own), both hold figures, and none of its cells stands over theirs: a rule-separated group of rows with a
    vertically centred cell ("6 | OTSL … / HTML …")."""
    if not 0 < i < len(body) - 1 or not all(any(is_number(c.text) for c in split[j]) for j in (i - 1, i + 1)):
        return False
    above, line, below = body[i - 1], body[i], body[i + 1]
    size = line.size
    if _center(below) - _center(above) > SPAN_PITCH * size:
        return False
    if abs(_center(line) - (_center(above) + _center(below)) / 2) > 0.35 * size:
        return False
    if (line.y0 - above.y1) + (below.y0 - line.y1) > SPAN_GAP * size:
        return False  # a label of its own between the rows ("Part II" in a table of contents) leaves room
    return not any(_overlaps(c, d) for c in split[i] for d in split[i - 1] + split[i + 1])


def _merge_spans(body: list[Line], split: list[list[Cell]]) -> tuple[list[Line], list[list[Cell]]]:
    """Body lines with each spanning line and the two rows it spans merged into one row (its cells top to
    bottom, so each column's values read in the page's order), as the table's rules group them."""
    lines_out: list[Line] = []
    cells_out: list[list[Cell]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and _spans(body, split, i + 1):
            group = body[i : i + 3]
            words = tuple(sorted((w for ln in group for w in ln.words), key=lambda w: w.x0))
            lines_out.append(Line(words, group[0].y0, max(ln.y1 for ln in group)))
            cells_out.append([c for j in range(i, i + 3) for c in split[j]])
            i += 3
            continue
        lines_out.append(body[i])
        cells_out.append(split[i])
        i += 1
    return lines_out, cells_out


def _stacked(upper: Line, lower: Line) -> bool:
    """Two header lines that overlap in height: a multi-row header whose cells are centred in their rows."""
    return lower.y0 < upper.y1


def _header_line(line_cells: list[Cell], stacked: bool) -> bool:
    """Cells that can name columns: short, no figures — or, in a line stacked in a multi-row header, a
    figure or two among words ("(0.75)" under "mAP")."""
    figures = sum(is_number(c.text) for c in line_cells)
    return bool(line_cells) and not any(len(c.text) > MAX_CELL for c in line_cells) and (
        figures == 0 or (stacked and 2 * figures < len(line_cells)))


def _beside_text(body: list[Line], split: list[list[Cell]]) -> tuple[list[Line], list[list[Cell]], bool]:
    """A table region that a column of running text runs beside (a table in one column of a two-column page:
    naacl06-shinyama.pdf, i1040nr.pdf): when at least half of its lines of two or more cells start (or end)
    with a cell of running text — or when four in five start with a figure (a tax table's "25,200 25,250", beside
    which a worked example runs for a few lines) — that edge's cells of PROSE_WORDS words or more belong to the
    text column, not to the table, and are taken out (the page text keeps them); lines left empty go. Also
    whether it did."""
    changed = False
    for edge in (0, -1):
        multi = [cs for cs in split if len(cs) >= 2]
        prose = 2 * sum(_running_text(cs[edge]) for cs in multi) >= len(multi)
        figures = edge == 0 and 5 * sum(is_number(cs[0].text) for cs in multi) >= 4 * len(multi)
        if not multi or not (prose or figures) or not any(_wordy(cs[edge]) for cs in multi):
            continue
        split = [[c for i, c in enumerate(cs) if not (i == (0 if edge == 0 else len(cs) - 1) and _wordy(c))]
                 for cs in split]
        changed = True
    if changed:
        kept = [(line, cs) for line, cs in zip(body, split, strict=True) if cs]
        body, split = [line for line, _ in kept], [cs for _, cs in kept]
    return body, split, changed


def _group_label(text: str) -> bool:
    """A short label over a group of rows ("ASSETS", "Current assets:", "Operating activities"): words, no figures."""
    words = text.split()
    return 0 < len(words) <= 4 and not any(any(ch.isdigit() for ch in w) for w in words)


def _wordy(c: Cell) -> bool:
    return len(c.text.split()) >= PROSE_WORDS and not is_number(c.text)


def _table(lines: list[Line], first: int, stop: int) -> Table | None:
    body, split = _merge_spans(lines[first:stop], [cells(line) for line in lines[first:stop]])
    body, split, beside_text = _beside_text(body, split)
    if sum(len(cs) >= 2 for cs in split) < 2:
        return None
    columns = _columns([c for c in split if len(c) >= 2])
    if len(columns) < 2:
        return None
    placed = [[(_column_of(c, columns), c) for c in line_cells] for line_cells in split]
    labelled = sum(1 for p in placed if any(k == 0 for k, _ in p))
    label_column = not all(is_number(c.text) for p in placed for k, c in p if k == 0)
    numeric = label_column and labelled >= MIN_ROWS
    # Header lines: leading lines without a row label, then the lines above that stand over the columns.
    head = 0
    while numeric and head < len(placed) and _heads(placed[head]):
        head += 1
    header_lines: list[list[Cell]] = list(split[:head])
    top = first
    labels = 0  # group labels passed over on the way up ("ASSETS", "Current assets:")
    while (numeric and top > 0 and len(header_lines) < MAX_HEADER_LINES
           and lines[top].y0 - lines[top - 1].y1 < LINE_GAP * lines[top - 1].size):
        above = cells(lines[top - 1])
        em = lines[top - 1].size
        if (GROUP_LABELS and not header_lines and labels < MAX_GROUP_LABELS and len(above) == 1
                and above[0].x1 < columns[1][0] - em and _group_label(above[0].text)):
            labels += 1  # a balance sheet's "ASSETS" / "Current assets:" between its dates and its first row
            top -= 1
            continue
        if any(c.x0 < columns[1][0] - 2 * em or len(c.text) > MAX_CELL or
               (_is_title(c.text) and len(c.text.split()) > 2) for c in above):
            break
        if len(above) == 1 and lines[top].y0 - lines[top - 1].y1 > HEADER_GAP * em:
            break  # a line apart ("Table of Contents" at the top of the page) names no column
        header_lines.insert(0, above)
        top -= 1
    if labels and not header_lines:  # no header above the labels: they stay text, as before
        top += labels
    grid = not header_lines and not any(is_number(c.text) for c in split[0])
    if grid:  # a grid's first lines (those without figures) name its columns
        head = 1
        while head < min(len(split) - 2, MAX_HEADER_LINES) and (
                (len(split[head]) < len(split[0]) and _header_line(split[head], False))
                or (_stacked(body[head - 1], body[head]) and _header_line(split[head], True))):
            head += 1  # a header cell's second line, or a row of a multi-row header
        header_lines = split[:head]
        while top > 0 and len(header_lines) < MAX_HEADER_LINES and _stacked(lines[top - 1], lines[top]) \
                and _header_line(above := cells(lines[top - 1]), True):
            header_lines.insert(0, above)  # the upper rows of a multi-row header, outside the region
            top -= 1
    rows = _rows(body[head:], placed[head:], len(columns), label_column)
    keep = [k for k in range(len(columns)) if (k == 0 and label_column) or any(r[k] for r in rows)]
    if len(rows) < 2 or len(keep) < 2:
        return None
    columns = [columns[k] for k in keep]
    rows = [tuple(r[k] for k in keep) for r in rows]
    notes: list[str] = []
    names = _names(header_lines, columns, 1 if label_column else 0, notes, grid)
    if label_column and numeric and not grid and names[0]:
        notes.append(names[0])  # over the row labels stands a note such as "(In millions)"
        names[0] = ""
    title = _title(lines, top)
    title = " ".join([title, *(n for n in notes if n not in title)]).strip()
    source = tuple(line.text for line in lines[top:stop])
    if beside_text:  # the table's own words, so that its place in the page text leaves the text column out
        source = tuple(line.text for line in lines[top:first]) + tuple(" ".join(c.text for c in cs) for cs in split)
    return Table(title, tuple(names), tuple(rows), source)


def _names(header_lines: list[list[Cell]], columns: list[tuple[float, float]], first: int,
           notes: list[str], grid: bool = False) -> list[str]:
    """Each column's name: the header lines' cells over it, top to bottom. A line with one cell per
    group of columns (three months | nine months over four columns) names each group; a note in
    parentheses ("(Unaudited)") goes to `notes`, unless it is a grid's unit under a named column
    ("Time" over "(secs)"). In a grid's multi-row header a cell centred over a run of columns that the
    lines below name alike ("TEDs" over "simple complex all") names the whole run."""
    names: list[list[str]] = [[] for _ in columns]
    occupied = [{_column_of(c, columns) for c in line_cells} for line_cells in header_lines]
    centred = _centred_runs(header_lines, columns, occupied) if first and not grid else {}
    for h, line_cells in enumerate(header_lines):
        cells_v = []
        for c in line_cells:
            if _NOTE.match(c.text) and not (grid and any(_column_of(c, columns) in o for o in occupied[:h])):
                notes.append(c.text)
            elif first and c.x1 <= columns[1][0]:
                names[0].append(c.text)
            else:
                cells_v.append(c)
        count = len(columns) - first
        group = count // max(1, len(cells_v))
        if not grid and cells_v and count % len(cells_v) == 0 and (len(cells_v) > 1 or count == 1) and all(
                columns[first + j * group][0] <= (c.x0 + c.x1) / 2 <= columns[first + (j + 1) * group - 1][1]
                for j, c in enumerate(cells_v)):
            for j, c in enumerate(cells_v):
                for k in range(first + j * group, first + (j + 1) * group):
                    names[k].append(c.text)
            continue
        for c in cells_v:  # a grid's header cell names one column (or a run); a statement's may span several, those
            # it overlaps and, when its middle falls between two columns, the run it is centred over ("Three Months
            # Ended" / "March 31," over "2022 2023")
            spanned = _run(c, columns, occupied, h) if grid else \
                sorted(set(_spanned(c, columns)) | set(centred.get((h, id(c)), ()))) if first \
                else [_column_of(c, columns)]
            for k in spanned:
                names[k].append(c.text)
    return [" ".join(n) for n in names]


def _centred_runs(header_lines: list[list[Cell]], columns: list[tuple[float, float]],
                  occupied: list[set[int]]) -> dict[tuple[int, int], list[int]]:
    """A statement's header cells whose middle falls between two columns, each with the run of columns it is
    centred over (`_run`), found from the bottom line up: a run marks its columns taken for the lines above, so
    "Three Months Ended" over "March 31," over "2022 2023" names both years. Keyed by (line, id of the cell);
    `occupied` is updated in place."""
    out: dict[tuple[int, int], list[int]] = {}
    for h in range(len(header_lines) - 1, -1, -1):
        for c in header_lines[h]:
            if _between(c, columns):
                out[h, id(c)] = run = _run(c, columns, occupied, h)
                occupied[h] |= set(run)
    return out


def _between(cell: Cell, columns: list[tuple[float, float]]) -> bool:
    """Whether the middle of `cell` falls between two columns, inside none."""
    middle = (cell.x0 + cell.x1) / 2
    return columns[0][1] < middle < columns[-1][0] and not any(a <= middle <= b for a, b in columns)


def _run(cell: Cell, columns: list[tuple[float, float]], occupied: list[set[int]], h: int) -> list[int]:
    """The columns a grid's header cell on line `h` stands over: its own, or the longest run around it whose
    columns hold no other cell of line `h`, are named alike by the lines below, and whose middle is the
    cell's (within RUN_CENTRE of the run's width)."""
    k = _column_of(cell, columns)

    def below(j: int) -> tuple[int, ...]:
        return tuple(g for g in range(h + 1, len(occupied)) if j in occupied[g])

    def free(j: int) -> bool:
        return 0 <= j < len(columns) and j not in occupied[h] and below(j) == below(k)

    if not below(k):
        return [k]
    left, right = k, k
    while free(left - 1):
        left -= 1
    while free(right + 1):
        right += 1
    middle = (cell.x0 + cell.x1) / 2
    best = [k]
    for a in range(left, k + 1):
        for b in range(k, right + 1):
            width = columns[b][1] - columns[a][0]
            if b - a + 1 > len(best) and abs((columns[a][0] + columns[b][1]) / 2 - middle) <= RUN_CENTRE * width:
                best = list(range(a, b + 1))
    return best


def _heads(line: list[tuple[int, Cell]]) -> bool:
    """A leading line that names columns: no row label (a unit note such as "(In millions)" aside),
    no figure but years."""
    if len(line) == 1 and line[0][1].text.endswith(":"):
        return False  # "ASSETS:" heads rows, not columns
    if any(k == 0 and not c.text.startswith("(") for k, c in line):
        return False
    return not any(is_number(c.text) and not _YEAR.match(c.text) for k, c in line if k > 0)


def _rows(body: list[Line], placed: list[list[tuple[int, Cell]]], width: int,
          label_column: bool) -> list[tuple[str, ...]]:
    """Rows with their labels: a label line ending in ":" heads the rows indented under it; a label
    line without values or colon is the first part of the next row's label."""
    rows: list[tuple[str, ...]] = []
    groups: list[tuple[str, float]] = []  # (label, indent) of the open "label:" lines, outermost first
    pending, pending_x0 = "", 0.0
    for line, line_cells in zip(body, placed):
        values = ["" for _ in range(width)]
        for k, c in line_cells:
            values[k] = f"{values[k]} {c.text}".strip()
        x0 = line.words[0].x0
        while groups and x0 <= groups[-1][1] + 1:
            groups.pop()
        lone = len(line_cells) == 1 and not is_number(line_cells[0][1].text)
        if label_column and (lone or all(k == 0 for k, _ in line_cells)):
            values[0] = " ".join(c.text for _, c in line_cells)
            if values[0].endswith(":"):
                groups.append((f"{pending} {values[0]}".rstrip(":").strip(), x0))
                pending = ""
            else:
                pending_x0 = x0 if not pending else pending_x0
                pending = f"{pending} {values[0]}".strip()
            continue
        if pending and values[0][:1].isupper() and x0 > pending_x0 + 1:
            groups.append((pending, pending_x0))  # an unpunctuated label line heading indented rows
            pending = ""
        if label_column:
            label = f"{pending} {values[0]}".strip()
            values[0] = " › ".join([*(g for g, _ in groups), label] if label else [g for g, _ in groups])
        pending = ""
        rows.append(tuple(values))
    return rows


def find_tables(lines: list[Line]) -> list[Table]:
    """The tables among a page's lines, top to bottom."""
    kinds = [_kind(cells(line)) for line in lines]
    found: list[Table] = []
    for first, stop in _regions(lines, kinds):
        table = _table(lines, first, stop)
        if table is None:
            continue
        previous = found[-1] if found else None
        if previous and not any(table.header) and len(previous.header) == len(table.header):
            table = Table(previous.title, previous.header, table.rows, table.source)  # the table goes on
        found.append(table)
    return found
