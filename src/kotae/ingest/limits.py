"""Caps on one file, checked before the work they bound: characters, pixels, frames, columns, line length.

`read_document` makes the index's `LimitSettings` current for the duration of one read (a context
variable, so a plug-in reader's signature does not change); readers ask `current()` and call the checks
here before they decode, parse or allocate in proportion to what the file claims.
"""
from __future__ import annotations

import contextvars
import re
from collections.abc import Iterator
from contextlib import contextmanager

from kotae.config import LimitSettings
from kotae.errors import DocumentError

_DEFAULT = LimitSettings()
_CURRENT: contextvars.ContextVar[LimitSettings | None] = contextvars.ContextVar("kotae_limits", default=None)
# One line of text longer than this is cut into pieces at spaces (or hard, when it has none): sentence
# splitting, tokenising and heading regexes work line by line, and a 10 MB line took GBs of memory.
MAX_LINE = 20_000
_LONG_LINE = re.compile(rf"[^\n]{{{MAX_LINE + 1},}}")
TEXT_BYTES_PER_CHAR = 4  # the most bytes one character takes in the encodings read (UTF-8, UTF-32 aside)


def current() -> LimitSettings:
    """The limits of the read in progress (the defaults outside one)."""
    return _CURRENT.get() or _DEFAULT


@contextmanager
def using(limits: LimitSettings) -> Iterator[None]:
    token = _CURRENT.set(limits)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def _fix(setting: str) -> str:
    return f"split the file, or raise index.limits.{setting} (KOTAE_INDEX_LIMITS_{setting.upper()})"


def check_text_bytes(path: str, size: int) -> None:
    """Refuse a text file whose bytes alone must hold more characters than `max_chars` (before decoding)."""
    cap = current().max_chars
    if size > cap * TEXT_BYTES_PER_CHAR:
        raise DocumentError(path, f"text file of {size:,} bytes, over the limit of {cap:,} characters",
                            _fix("max_chars"))


def check_chars(path: str, n: int) -> None:
    cap = current().max_chars
    if n > cap:
        raise DocumentError(path, f"{n:,} characters of text, over the limit of {cap:,}", _fix("max_chars"))


def check_pixels(path: str, width: int, height: int, frame: int | None = None) -> None:
    cap = current().max_pixels
    if width * height > cap:
        where = f"frame {frame} is" if frame is not None else "the image is"
        raise DocumentError(path, f"{where} {width}×{height} = {width * height:,} pixels, over the limit of "
                            f"{cap:,}", "scale it down, or raise index.limits.max_pixels")


def check_frames(path: str, n: int) -> None:
    cap = current().max_frames
    if n > cap:
        raise DocumentError(path, f"the image has {n:,} frames, over the limit of {cap:,}", _fix("max_frames"))


def check_columns(path: str, n: int) -> None:
    cap = current().max_columns
    if n > cap:
        raise DocumentError(path, f"the table has {n:,} columns, over the limit of {cap:,}", _fix("max_columns"))


def break_long_lines(text: str) -> str:
    """Lines over MAX_LINE characters cut into pieces of at most MAX_LINE, at the last space when there is one
    (that space becomes the line break), else hard (a newline inserted). No character is dropped."""
    if len(text) <= MAX_LINE or not _LONG_LINE.search(text):
        return text
    return _LONG_LINE.sub(lambda m: _cut(m.group(0)), text)


def _cut(line: str) -> str:
    pieces, at = [], 0
    while len(line) - at > MAX_LINE:
        space = line.rfind(" ", at + MAX_LINE // 2, at + MAX_LINE)
        if space >= 0:  # the space becomes the line break: offsets stay
            pieces.append(line[at:space])
            at = space + 1
        else:
            pieces.append(line[at:at + MAX_LINE])
            at += MAX_LINE
    pieces.append(line[at:])
    return "\n".join(pieces)
