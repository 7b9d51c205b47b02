"""Text layers whose font map turns digits into symbols (pure).

A PDF font without a proper ToUnicode map can give its digit glyphs the codes of Windows-1252
symbols: a gazette then reads 「平成 ™— 年 › 月 ™œ 日」 for 「平成二十年三月二十日」. Such a page looks
like good text to every other check, so these symbols are looked for where numbers belong: before a
counter (年 月 日 号 …) or after 第; and, on a page without a single digit, anywhere.
"""

from __future__ import annotations

import re

# Windows-1252's 0x80–0x9F symbols that real text rarely uses (not quotes, dashes, bullets or …).
RARE = set("ƒˆ‰Š‹ŒŽ˜™š›œžŸ†‡")
# …and in number positions also the common ones: a digit mapped to — or ’ is still a digit.
NUMBERISH = RARE | set("‚„…‘’“”•–—€")
_COUNTERS = "年月日号条項頁円時分歳回"
MIN_HITS = 2  # number positions holding symbols before a page is called broken
MIN_RARE = 5  # rare symbols on a page without digits


_ODD = f"[{re.escape(''.join(sorted(NUMBERISH)))}\ue000-\uf8ff]"
_RARE = re.compile(f"[{re.escape(''.join(sorted(RARE)))}\ue000-\uf8ff]")
_NUMBER_PLACE = re.compile(rf"{_ODD}{{1,4}}\s?(?=[{_COUNTERS}])|(?<=第){_ODD}{{1,4}}")


def broken_digits(text: str) -> str | None:
    """Why the page's digits look mapped to symbols, or None."""
    hits = _NUMBER_PLACE.findall(text)
    if len(hits) >= MIN_HITS:
        return f"broken font mapping (digits read as symbols: {' '.join(h.strip() for h in hits[:3])})"
    rare = len(_RARE.findall(text))
    if rare >= MIN_RARE and not any(ch.isdigit() for ch in text):
        return f"broken font mapping ({rare} symbols and no digit)"
    return None
