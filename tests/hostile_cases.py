"""Hostile and unusual input files, generated with fixed seeds (shared by tests/test_hostile.py and bench/hostile.py).

Each `Case` writes its file into a folder and says what must happen: "index" (valid input, must be indexed),
"fail" (must fail, alone, with its name in the message) or "either" (a damaged file a reader may still read).
`during` optionally changes the file between hashing and reading (a file changing while it is read).
"""
from __future__ import annotations

import io
import os
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from kotae.config import LimitSettings

TEXT = ("Every employee receives twenty days of paid leave per calendar year. Salaries are paid on the "
        "25th day of every month by bank transfer. Travel expenses are refunded within ten days.")
JAPANESE = "従業員は毎年二十日の有給休暇を取得できる。給与は毎月二十五日に銀行振込で支払われる。"
GOOD = "good.md"  # the valid file indexed beside every case


@dataclass
class Case:
    id: str
    make: Callable[[str], str]  # folder → the path written
    expect: str  # "index" | "fail" | "either"
    limits: LimitSettings = field(default_factory=LimitSettings)
    during: Callable[[str], None] | None = None  # called with the path between hashing and reading


def write(folder: str, name: str | bytes, data: bytes) -> str:
    path = os.path.join(os.fsencode(folder), name) if isinstance(name, bytes) else os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return os.fsdecode(path)


def _writer(name: str | bytes, data: bytes) -> Callable[[str], str]:
    return lambda folder: write(folder, name, data)


# --- valid originals ----------------------------------------------------------------------------
def pdf_bytes(encrypt: str | None = None) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, encrypt=encrypt, invariant=1)
    for page in range(2):
        c.setFont("Helvetica", 12)
        for i, sentence in enumerate(TEXT.split(". ")):
            c.drawString(72, 760 - 20 * i, f"{sentence} (page {page + 1})")
        c.showPage()
    c.save()
    return buf.getvalue()


def docx_bytes() -> bytes:
    import docx

    d = docx.Document()
    d.add_heading("Office rules", 1)
    for sentence in TEXT.split(". "):
        d.add_paragraph(sentence + ".")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def image_bytes(fmt: str, frames: int = 1, size: tuple[int, int] = (480, 80)) -> bytes:
    from PIL import Image, ImageDraw

    images = []
    for n in range(frames):
        im = Image.new("L", size, 255)
        ImageDraw.Draw(im).text((10, 30), f"Paid leave twenty days {n}", fill=0)
        images.append(im)
    buf = io.BytesIO()
    images[0].save(buf, format=fmt, save_all=frames > 1, append_images=images[1:])
    return buf.getvalue()


def html_bytes() -> bytes:
    return (f"<!doctype html><html><head><title>Rules</title></head><body><h1>Office rules</h1>"
            f"<p>{TEXT}</p><table><tr><th>item</th><th>days</th></tr><tr><td>leave</td><td>20</td></tr>"
            f"</table></body></html>").encode()


def note(text: str = TEXT) -> bytes:
    return f"# Note\n\n{text}\n".encode()


# --- damage -------------------------------------------------------------------------------------
def flipped(data: bytes, seed: int) -> bytes:
    """`data` with 1–40 random bytes replaced (header bytes included), by a fixed seed."""
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims `width`×`height` pixels (its data is for 1×1)."""
    data = bytearray(image_bytes("PNG", size=(1, 1)))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


def jpeg_claiming(width: int, height: int) -> bytes:
    data = bytearray(image_bytes("JPEG", size=(16, 16)))
    sof = data.find(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def png_bomb() -> bytes:
    """A real 12,000×12,000 one-bit PNG of a few KB: 144 M pixels once decoded."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("1", (12_000, 12_000), 1).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def billion_laughs() -> bytes:
    ents = ['<!ENTITY lol "lol">'] + [f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
                                      for i in range(1, 10)]
    return (f'<?xml version="1.0"?><!DOCTYPE html [{"".join(ents)}]><html><body><p>{TEXT}</p>'
            f"<p>&lol9;</p></body></html>").encode()


def xxe() -> bytes:
    return (f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><html><body>'
            f"<p>{TEXT}</p><p>&xxe;</p></body></html>").encode()


def zip_of(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


# --- files that change while read ---------------------------------------------------------------
def _truncate(path: str) -> None:
    open(path, "wb").close()


def _garble(path: str) -> None:
    with open(path, "wb") as f:
        f.write(random.Random(3).randbytes(4096))


def _append(path: str) -> None:
    with open(path, "ab") as f:
        f.write(b"\nA sentence added while the file was being read.\n")


def _symlink_loop(folder: str) -> str:
    a, b = os.path.join(folder, "loop-a.md"), os.path.join(folder, "loop-b.md")
    os.symlink(b, a)
    os.symlink(a, b)
    return a


def _link(target: str, name: str) -> Callable[[str], str]:
    def make(folder: str) -> str:
        path = os.path.join(folder, name)
        os.symlink(target, path)
        return path
    return make


def _fifo(folder: str) -> str:
    path = os.path.join(folder, "pipe.md")
    os.mkfifo(path)
    return path


def _link_to_good(folder: str) -> str:
    target = write(folder, "target-note.md", note("The link target says paid leave is twenty days."))
    path = os.path.join(folder, "link.md")
    os.symlink(target, path)
    return path


def cases() -> list[Case]:
    """Every case, in a fixed order; the originals are built once."""
    pdf, docx, html = pdf_bytes(), docx_bytes(), html_bytes()
    png, jpeg, tiff = image_bytes("PNG"), image_bytes("JPEG"), image_bytes("TIFF", frames=2)
    out: list[Case] = []
    for seed in range(8):
        out.append(Case(f"flip-pdf-{seed}", _writer(f"flip{seed}.pdf", flipped(pdf, 100 + seed)), "either"))
    for seed in range(6):
        out.append(Case(f"flip-docx-{seed}", _writer(f"flip{seed}.docx", flipped(docx, 200 + seed)), "either"))
        out.append(Case(f"flip-html-{seed}", _writer(f"flip{seed}.html", flipped(html, 300 + seed)), "either"))
    for seed in range(5):
        out.append(Case(f"flip-png-{seed}", _writer(f"flip{seed}.png", flipped(png, 400 + seed)), "either"))
        out.append(Case(f"flip-jpeg-{seed}", _writer(f"flip{seed}.jpg", flipped(jpeg, 500 + seed)), "either"))
        out.append(Case(f"flip-tiff-{seed}", _writer(f"flip{seed}.tif", flipped(tiff, 600 + seed)), "either"))
    for name, data in (("pdf", pdf), ("docx", docx), ("png", png), ("jpg", jpeg), ("html", html)):
        out.append(Case(f"truncated-{name}", _writer(f"truncated.{name}", data[: len(data) // 2]), "either"))
    out += [
        Case("bomb-png-header", _writer("claims.png", png_claiming(100_000, 100_000)), "fail"),
        Case("bomb-jpeg-header", _writer("claims.jpg", jpeg_claiming(65_000, 65_000)), "fail"),
        Case("bomb-png-real", _writer("bomb.png", png_bomb()), "fail"),
        Case("bomb-tiff-frames", _writer("frames.tif", image_bytes("TIFF", frames=60, size=(8, 8))), "fail",
             LimitSettings(max_frames=50)),
        Case("bomb-billion-laughs", _writer("laughs.html", billion_laughs()), "either"),
        Case("xxe-html", _writer("xxe.html", xxe()), "either"),
        Case("deep-html", _writer("deep.html", b"<html><body>" + b"<div>" * 20_000 + note() + b"</div>" * 20_000),
             "index"),
        Case("csv-wide", _writer("wide.csv", (",".join(f"c{i}" for i in range(20_000)) + "\n"
                                              + ",".join("1" for _ in range(20_000)) + "\n").encode()), "fail"),
        Case("md-long-line", _writer("long.md", b"# Long\n\n" + b"x" * 1_000_000 + b"\n"), "index"),
        Case("md-long-words", _writer("words.md", b"# Words\n\n" + b"leave " * 200_000 + b"\n"), "index"),
        Case("over-max-chars", _writer("big.md", note(TEXT * 40)), "fail", LimitSettings(max_chars=2_000)),
        Case("pdf-encrypted", _writer("secret.pdf", pdf_bytes(encrypt="password")), "fail"),
        Case("docx-no-document", _writer("empty.docx", zip_of({"[Content_Types].xml": b"<Types/>"})), "fail"),
        Case("docx-not-office", _writer("other.docx", zip_of({"a.txt": b"hello"})), "fail"),
        Case("pdf-header-only", _writer("header.pdf", b"%PDF-1.7\n%%EOF\n"), "fail"),
    ]
    out += [
        Case("enc-utf8-bom", _writer("bom.md", b"\xef\xbb\xbf" + note()), "index"),
        Case("enc-utf16-le", _writer("utf16le.txt", note().decode().encode("utf-16")), "index"),
        Case("enc-utf16-be", _writer("utf16be.txt", b"\xfe\xff" + note().decode().encode("utf-16-be")), "index"),
        Case("enc-shift-jis", _writer("sjis.txt", JAPANESE.encode("cp932")), "index"),
        Case("enc-euc-jp", _writer("eucjp.txt", (JAPANESE * 3).encode("euc_jp")), "index"),
        Case("enc-cp1252", _writer("cp1252.txt", "Café crème: the résumé was naïve, a façade.".encode("cp1252")),
             "index"),
        Case("enc-controls", _writer("controls.md", note(TEXT + " \x07\x1b[31m red \x1b[0m \x0c")), "index"),
        Case("enc-bidi", _writer("bidi.md", note(TEXT + " \u202eevil\u202c \u200b\u200d")), "index"),
        Case("enc-newlines", _writer("newlines.txt", TEXT.replace(". ", ".\r").encode()), "index"),
        Case("enc-nul", _writer("nul.txt", note().replace(b"leave", b"le\x00ave")), "either"),
        Case("enc-utf16-no-bom", _writer("nobom.csv", "name,days\nleave,20\nsick,10\n".encode("utf-16-le")),
             "either"),
        Case("enc-bad-utf8", _writer("badutf8.md", note() + b"\xff\xfe\xc3\x28 tail"), "either"),
        Case("enc-binary", _writer("binary.txt", random.Random(9).randbytes(8192)), "fail"),
        Case("empty", _writer("empty.md", b""), "fail"),
        Case("whitespace", _writer("blank.md", b"  \n\t\n   \n"), "fail"),
        Case("bom-only", _writer("bomonly.txt", b"\xef\xbb\xbf"), "fail"),
    ]
    out += [
        Case("name-newline", _writer("two\nlines.md", note()), "index"),
        Case("name-tab", _writer("tab\there.md", note()), "index"),
        Case("name-not-utf8", _writer(b"caf\xe9-\xff.md", note()), "index"),
        Case("name-long", _writer("n" * 240 + ".md", note()), "index"),
        Case("name-dash", _writer("-rf.md", note()), "index"),
        Case("name-japanese", _writer("社内 規程 ①.md", note(JAPANESE)), "index"),
        Case("name-emoji", _writer("📄 notes.md", note()), "index"),
        Case("name-ansi", _writer("\x1b[31mred.md", note()), "index"),
        Case("name-rtl", _writer("\u202edm.exe.md", note()), "index"),
        Case("name-no-extension", _writer("README", note()), "either"),
    ]
    out += [
        Case("symlink-loop", _symlink_loop, "fail"),
        Case("symlink-dangling", _link("/nonexistent/kotae/nothing.md", "dangling.md"), "fail"),
        Case("symlink-dev-zero", _link("/dev/zero", "zero.md"), "fail"),
        Case("symlink-valid", _link_to_good, "index"),
        Case("fifo", _fifo, "fail"),
    ]
    out += [
        Case("changing-truncated", _writer("shrinks.md", note()), "fail", during=_truncate),
        Case("changing-garbled", _writer("garbled.md", note()), "either", during=_garble),
        Case("changing-deleted", _writer("vanishes.md", note()), "fail", during=os.remove),
        Case("changing-appended", _writer("grows.md", note()), "index", during=_append),
    ]
    return out
