"""CSV/TSV reader, and the "column: value | column: value" row rendering shared with DOCX and HTML."""

from __future__ import annotations

import csv
import io
import re

from kotae.errors import DocumentError
from kotae.ingest.clean import fix_mojibake, normalize_newlines, remove_control_chars
from kotae.ingest.detect import extension
from kotae.ingest.encoding import decode_text
from kotae.ingest.limits import check_columns, current
from kotae.ingest.registry import register
from kotae.types import ParsedDocument, Section

DELIMITERS = ",\t;|"
_SAMPLE = 64 * 1024
_CELL_BREAK = re.compile(r"\s*\n\s*")


def render_row(header: list[str], values: list[str]) -> str:
    """One row as "column: value | column: value"; empty values are skipped, unnamed columns show the value."""
    parts = []
    for i, value in enumerate(values):
        value = _CELL_BREAK.sub(" ", value.strip())
        if not value:
            continue
        name = header[i].strip() if i < len(header) else ""
        parts.append(f"{name}: {value}" if name else value)
    return " | ".join(parts)


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


def _rows(text: str, delimiter: str, path: str = "") -> tuple[list[str], list[Section]]:
    first = text.find("\n")
    check_columns(path, text.count(delimiter, 0, first if first >= 0 else len(text)) + 1)  # before parsing
    records = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(records, [])
    sections: list[Section] = []
    offset = 0
    cap = current().max_columns
    for number, record in enumerate(records, start=1):  # numbering counts blank rows too
        if len(record) > cap:
            check_columns(f"{path} (row {number})", len(record))
        line = render_row(header, record)
        if line:
            sections.append(Section(1, (), line, offset, rows=(number, number), kind="rows"))
            offset += len(line) + 1
    return header, sections


@register("csv", extensions=(".csv", ".tsv"))
def read_csv(path: str, data: bytes) -> ParsedDocument:
    """Read a CSV/TSV: the first row names the columns; one section per data row (rows=(i, i))."""
    text = remove_control_chars(fix_mojibake(normalize_newlines(decode_text(path, data))))
    if extension(path) == ".tsv":
        delimiter = "\t"
    else:
        sample = text[:_SAMPLE]
        if len(text) > _SAMPLE and "\n" in sample:
            sample = sample[: sample.rfind("\n")]  # whole lines only
        delimiter = sniff_delimiter(sample)
    try:
        header, sections = _rows(text, delimiter, path)
    except csv.Error as exc:
        raise DocumentError(
            path, f"malformed CSV ({exc})", "check the quoting, or save it again as UTF-8 CSV"
        ) from exc
    lines = [s.text for s in sections]
    warnings: tuple[str, ...] = ()
    if not any(h.strip() for h in header):
        warnings = ("the file has no text",)
    elif not sections:
        warnings = ("the CSV has a header row but no data rows",)
    return ParsedDocument(
        path=path, kind="csv", pages=("\n".join(lines),), sections=tuple(sections), warnings=warnings
    )
