"""Shared text decoding for every text format (CSV, TSV, plain text, Markdown, HTML)."""

from __future__ import annotations

import codecs
import re

from kotae.errors import DocumentError

# Tried strictly, in this order, before asking charset-normalizer.
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_STRICT = ("utf-8", "cp932")
# charset-normalizer may only pick among encodings a Japanese/English user plausibly has; with
# latin-1 or cp1251 allowed, any bytes at all would "decode" into nonsense.
_GUESSES = ["utf_8", "utf_16", "utf_32", "cp932", "euc_jp", "iso2022_jp", "cp1252"]
_IMPLAUSIBLE = re.compile("[\x00\x80-\x9f]")


def _plausible(text: str, encoding: str = "") -> bool:
    """Reject decodes that produce NULs or C1 controls: the codec was wrong (or it is binary). Bytes that are
    valid UTF-8 throughout are UTF-8 whatever controls they spell (a C1 control is two bytes there, C2 80–9F,
    which no other codec's text forms by chance: text copied out of a PDF keeps its checkbox glyph as U+0084);
    the cleaning passes then repair or drop those controls (ftfy reads U+0084 as cp1252's „)."""
    if encoding == "utf-8":
        return "\x00" not in text
    return _IMPLAUSIBLE.search(text) is None


def decode_bytes(data: bytes) -> tuple[str, str] | None:
    """Decode text bytes; return (text, encoding) or None when no supported encoding fits.

    Order: UTF-8/UTF-16 by BOM, strict UTF-8, strict CP932 (Shift_JIS), then charset-normalizer
    restricted to Japanese and Western encodings. A leading BOM is not part of the text.
    """
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(enc)
            except UnicodeDecodeError:
                return None
            return (text.lstrip("\ufeff"), enc) if _plausible(text.lstrip("\ufeff")) else None
    for enc in _STRICT:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if _plausible(text, enc):
            return text, enc
    import charset_normalizer  # (here: 0.13 s to import, which a one-shot `kotae ask` need not pay)

    best = charset_normalizer.from_bytes(data, cp_isolation=_GUESSES).best()
    if best is None:
        return None
    text = str(best).lstrip("\ufeff")
    return (text, best.encoding) if _plausible(text) else None


def bomless_utf16(data: bytes) -> str | None:
    """"utf-16-le" or "utf-16-be" when `data` looks like UTF-16 without a byte order mark (most characters
    of Latin or ASCII text have a zero byte on one side: ≥ 30 % zeros on one side, ≤ 1 % on the other)."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    zeros_even, zeros_odd = even.count(0) / len(even), odd.count(0) / max(1, len(odd))
    if zeros_odd >= 0.3 and zeros_even <= 0.01:
        return "utf-16-le"
    if zeros_even >= 0.3 and zeros_odd <= 0.01:
        return "utf-16-be"
    return None


def decode_lenient(path: str, data: bytes) -> tuple[str, tuple[str, ...]]:
    """`decode_text`, and what had to be forgiven: UTF-16 without a byte order mark is read as such, and
    stray NUL bytes (at most 1 % of the bytes: a file padded or damaged by another program) are dropped with a
    warning."""
    if not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\x00" in data:
        utf16 = bomless_utf16(data)
        if utf16 is not None:
            try:
                text = data.decode(utf16)
            except UnicodeDecodeError:
                text = ""
            if text and _plausible(text.lstrip("\ufeff")):
                return text.lstrip("\ufeff"), (f"read as {utf16.upper()} without a byte order mark",)
        nuls = data.count(0)
        if nuls > max(8, len(data) // 100):  # not stray: a binary file, or an encoding we do not read
            return decode_text(path, data), ()
        text = decode_text(path, data.replace(b"\x00", b""))
        return text, ((f"{nuls} NUL byte{'' if nuls == 1 else 's'} dropped (the file is damaged or not text "
                      "throughout); check it"),)
    return decode_text(path, data), ()


def decode_text(path: str, data: bytes) -> str:
    """Decode a text file's bytes or raise DocumentError naming the file and the fix."""
    found = decode_bytes(data)
    if found is None:
        raise DocumentError(
            path,
            "cannot decode the text (not UTF-8, UTF-16, Shift_JIS/CP932, EUC-JP or Windows-1252)",
            "save it as UTF-8",
        )
    return found[0]
