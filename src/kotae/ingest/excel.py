"""Excel reader (openpyxl): each worksheet a page headed by its name, its tables found as in CSV files.

Read in read-only mode, row by row, so a large sheet is never held as cells; values are the ones Excel saved
(`data_only`: a formula's cached result). Merged cells (which read-only mode does not report) are found by
scanning the sheet's XML as a stream: a value merged down a column is repeated on every row it spans, so
each row names its category. Rows are numbered as Excel numbers them (Section.rows), and the title rows above
a table's header become its heading under the sheet name: "book.xlsx sheet 2 › 経費コード › …".
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

import openpyxl
from openpyxl.utils.cell import range_boundaries

from kotae.errors import DocumentError
from kotae.ingest import ooxml_strict
from kotae.ingest.charts import chart_text
from kotae.ingest.clean import remove_control_chars
from kotae.ingest.grid import grid_lines, page_of
from kotae.ingest.ocr import OcrOptions, as_options
from kotae.ingest.pictures import read_pictures
from kotae.ingest.registry import register
from kotae.ingest.xlsx_parts import sheet_parts
from kotae.types import ParsedDocument, Section

__all__ = ["NOTES", "cell_text", "read_xlsx"]

NOTES = "Cell notes"  # the heading of a sheet's cell notes (comments), read after its cells

_MERGE = re.compile(rb'<(?:\w+:)?mergeCell\s+ref="([A-Z]+[0-9]+(?::[A-Z]+[0-9]+)?)"')
_FORMULA = re.compile(rb"<(?:\w+:)?f[ >/]")
_UNCACHED = re.compile(rb"(?:</(?:\w+:)?f>|<(?:\w+:)?f\b[^>]*/>)\s*(?:<(?:\w+:)?v\s*/>|<(?:\w+:)?v>\s*</(?:\w+:)?v>|</(?:\w+:)?c>)")
_BLOCK = 1 << 20
Merge = tuple[int, int, int, int]  # min_col, min_row, max_col, max_row


def cell_text(value: Any) -> str:
    """A cell's value as Excel shows it, roughly: integers without ".0", 15 significant digits, ISO dates."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.15g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return remove_control_chars(str(value)).strip()


def _scan(source: io.BufferedIOBase) -> tuple[list[Merge], int, int]:
    """The merged ranges, formula count and formulas without a saved value of a sheet's XML, read in
    blocks (never whole)."""
    merges: list[Merge] = []
    formulas = uncached = 0
    tail = b""
    while block := source.read(_BLOCK):
        text = tail + block
        cut = text.rfind(b"<")  # a tag split between blocks is seen whole in the next round
        done, tail = (text[:cut], text[cut:]) if cut > 0 else (text, b"")
        merges += [range_boundaries(m.decode()) for m in _MERGE.findall(done)]  # type: ignore[misc]
        formulas += len(_FORMULA.findall(done))
        uncached += len(_UNCACHED.findall(done))
    merges += [range_boundaries(m.decode()) for m in _MERGE.findall(tail)]  # type: ignore[misc]
    formulas += len(_FORMULA.findall(tail))
    uncached += len(_UNCACHED.findall(tail))
    return [m for m in merges if None not in m], formulas, uncached


def _rows(values: Iterable[tuple[Any, ...]], merges: list[Merge]) -> Iterator[tuple[int, list[str]]]:
    """(Excel row number, cell texts) of each row, a value merged down a column repeated on the rows below."""
    down = sorted((m for m in merges if m[3] > m[1]), key=lambda m: m[1])
    active: list[tuple[Merge, str]] = []
    at = 0
    for number, row in enumerate(values, start=1):
        cells = [cell_text(v) for v in row]
        while at < len(down) and down[at][1] <= number:
            merge = down[at]
            if merge[1] == number:
                col = merge[0] - 1
                active.append((merge, cells[col] if col < len(cells) else ""))
            at += 1
        active = [(m, v) for m, v in active if m[3] >= number]
        for (min_col, min_row, _, _), value in active:
            if number > min_row and value:
                cells += [""] * (min_col - len(cells))
                if not cells[min_col - 1]:
                    cells[min_col - 1] = value
        yield number, cells


def _sheet(book: Any, sheet: Any, number: int) -> tuple[str, list[Section], list[str]]:
    with sheet._get_source() as source:  # the sheet's XML part, as a stream
        merges, formulas, uncached = _scan(source)
    sheet.reset_dimensions()  # a stated size of A1:XFD1048576 would make openpyxl pad every row to it
    rows = _rows(sheet.iter_rows(min_row=1, values_only=True), merges)
    text, sections = page_of(grid_lines(rows), number, heading=(sheet.title,))
    notes = []
    if uncached:
        notes.append(f"sheet {number} ({sheet.title}): {uncached} of {formulas} formulas have no saved value "
                     "(the program that wrote the file did not calculate them); open and save it in Excel")
    return text, sections, notes


@register("xlsx", extensions=(".xlsx", ".xlsm"))
def read_xlsx(path: str, data: bytes, *, ocr: str | OcrOptions = "auto") -> ParsedDocument:
    """Read an Excel workbook: page N is worksheet N, its name the heading; its charts (also a chart sheet's) after
    its cells, as their titles and cached figures (kotae.ingest.charts), then the text OCR reads in its pictures
    (kotae.ingest.pictures), then its cell notes under "Cell notes"."""
    try:
        package = ooxml_strict.package(path, data)
        book = openpyxl.load_workbook(io.BytesIO(package), read_only=True, data_only=True)
    except DocumentError:
        raise
    except Exception as exc:  # openpyxl raises KeyError, ValueError, zip and XML errors alike
        raise DocumentError(path, f"not a valid XLSX file ({type(exc).__name__}: {exc})",
                            "open it in Excel and save it again") from exc
    pages: list[str] = []
    sections: list[Section] = []
    warnings: list[str] = []
    try:
        extras = sheet_parts(zipfile.ZipFile(io.BytesIO(package)))
        pictures = [blob for parts in extras for blob in parts.pictures]
        read, picture_notes = read_pictures(pictures, as_options(ocr))
        warnings += picture_notes
        seen = 0
        for number, sheet in enumerate(book.worksheets, start=1):
            found: list[Section] = []
            notes: list[str] = []
            if not hasattr(sheet, "iter_rows"):  # a chart sheet: only its charts
                text = ""
            else:
                text, found, notes = _sheet(book, sheet, number)
            parts = extras[number - 1] if number <= len(extras) else None
            added: list[tuple[str, tuple[str, ...], str]] = [
                (chart_text(space), (sheet.title,), "table") for space in (parts.charts if parts else ())]
            count = len(parts.pictures) if parts else 0
            added += [(words, (sheet.title,), "text") for words in read[seen:seen + count]]
            seen += count
            if parts and parts.notes:  # cell notes, after the cells: "B2: 税抜金額…"
                added.append(("\n".join(f"{ref}: {note}" for ref, note in parts.notes), (sheet.title, NOTES), "text"))
            for shown, heading, kind in added:
                if shown:
                    start = len(text) + 1 if text else 0
                    text = f"{text}\n{shown}" if text else shown
                    found.append(Section(number, heading, shown, start, kind=kind))
            pages.append(text)
            sections += found
            warnings += notes
    except DocumentError:
        raise
    except Exception as exc:
        raise DocumentError(path, f"not a valid XLSX file ({type(exc).__name__}: {exc})",
                            "open it in Excel and save it again") from exc
    finally:
        book.close()
    if not any(p.strip() for p in pages):
        warnings.append("the workbook has no text")
    title = (book.properties.title or "") if book.properties else ""
    return ParsedDocument(path=path, kind="xlsx", pages=tuple(pages) or ("",), sections=tuple(sections),
                          warnings=tuple(warnings), title=title.strip())
