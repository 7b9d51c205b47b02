"""File names as they are and as they are shown: bytes that are not UTF-8, control characters.

On POSIX a file name is bytes; Python hands the ones that are not UTF-8 over as lone surrogates
(`surrogateescape`), which no UTF-8 database, JSON or terminal accepts. `storable` keeps such a name
as text with each undecodable byte written `\\xNN` (names that are valid UTF-8 stay as they are), and
`on_disk` finds the file again from that form. `shown` is for every listing a person reads: control
characters (a newline in a name would forge a row) and undecodable bytes escaped, nothing else touched.
"""
from __future__ import annotations

import os
import re
import unicodedata

_ESCAPED_BYTE = re.compile(r"\\x([0-9a-fA-F]{2})")
_SURROGATE = re.compile("[\udc80-\udcff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def has_undecodable(name: str) -> bool:
    return _SURROGATE.search(name) is not None


def storable(name: str) -> str:
    """`name` with its undecodable bytes (lone surrogates) written as `\\xNN`; valid text unchanged."""
    if not has_undecodable(name):
        return name
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def on_disk(stored: str) -> str:
    """The path to open for a stored name: itself when it exists, else with its `\\xNN` turned back into bytes."""
    if os.path.exists(stored) or "\\x" not in stored:
        return stored
    raw = _ESCAPED_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)) if int(m.group(1), 16) >= 0x80
                            else m.group(0), stored)
    return raw if os.path.exists(raw) else stored


def shown(text: str) -> str:
    """`text` for a terminal or a tab-separated listing: control and format characters, and undecodable bytes,
    escaped (\\n, \\t, \\x1b, \\u202e, \\xff); backslashes only doubled where something else was escaped."""
    if all(ch.isprintable() or ch == " " for ch in text):
        return text
    out = []
    for ch in text:
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch == " " or ch.isprintable() or unicodedata.category(ch) == "Zs":
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)
