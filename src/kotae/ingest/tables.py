"""CSV/TSV reader, and the "column: value | column: value" row rendering shared with DOCX, HTML and Excel.

Title rows above the header (`Stanley Cups,,`) are found as in Excel sheets (`kotae.ingest.grid`): they
become the heading of the rows under them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from kotae.errors import DocumentError
from kotae.ingest.clean import fix_mojibake, normalize_newlines, remove_control_chars
from kotae.ingest.detect import extension
from kotae.ingest.encoding import decode_lenient
from kotae.ingest.grid import grid_lines, page_of, render_row
from kotae.ingest.limits import check_columns, current
from kotae.ingest.registry import register
from kotae.types import ParsedDocument

DELIMITERS = ",\t;|"
_SAMPLE = 64 * 1024
__all__ = ["read_csv", "render_row", "render_table", "sniff_delimiter"]


def render_table(rows: list[list[str]]) -> str:
    """A table as lines, one per data row, using the first row as column names."""
    if not rows:
        return ""
    if len(rows) == 1:
        return " | ".join(v.strip() for v in rows[0] if v.strip())
    lines = (render_row(rows[0], row) for row in rows[1:])
    return "\n".join(line for line in lines if line)


def sniff_delimiter(sample: str) -> str:
    """The delimiter among , TAB ; | (csv.Sniffer, else the one most frequent in the first line)."""
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        first = sample.split("\n", 1)[0]
        best = max(DELIMITERS, key=first.count)
        return best if first.count(best) else ","


def _checked(records: Iterable[list[str]], path: str) -> Iterator[tuple[int, list[str]]]:
    """Numbered records (from 1, blank rows counted), refusing a row wider than the column cap as it comes."""
    cap = current().max_columns
    for number, record in enumerate(records, start=1):
        if len(record) > cap:
            check_columns(f"{path} (row {number})", len(record))
        yield number, record


@register("csv", extensions=(".csv", ".tsv"))
def read_csv(path: str, data: bytes) -> ParsedDocument:
    """Read a CSV/TSV: title rows, then the row that names the columns; one section per data row (rows=(i, i),
    counted from the header row), under the table's title."""
    decoded, notes = decode_lenient(path, data)
    text = remove_control_chars(fix_mojibake(normalize_newlines(decoded)))
    if extension(path) == ".tsv":
        delimiter = "\t"
    else:
        sample = text[:_SAMPLE]
        if len(text) > _SAMPLE and "\n" in sample:
            sample = sample[: sample.rfind("\n")]  # whole lines only
        delimiter = sniff_delimiter(sample)
    try:
        first = text.find("\n")
        check_columns(path, text.count(delimiter, 0, first if first >= 0 else len(text)) + 1)  # before parsing
        records = _checked(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), path)
        page, sections = page_of(grid_lines(records), 1, rows="data")
    except csv.Error as exc:
        raise DocumentError(
            path, f"malformed CSV ({exc})", "check the quoting, or save it again as UTF-8 CSV"
        ) from exc
    warnings: tuple[str, ...] = notes
    if not text.strip(delimiter + " \n\t"):
        warnings += ("the file has no text",)
    elif not any(s.kind == "rows" for s in sections):
        warnings += ("the CSV has a header row but no data rows",)
    return ParsedDocument(path=path, kind="csv", pages=(page,), sections=tuple(sections), warnings=warnings)
