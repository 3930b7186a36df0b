"""Documents built in the tests: an EPUB (zip + OPF, as the format defines it) and a DOCX
(python-docx), each with chapters and a sentence per chapter that tests quote."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx

EPUB_CHAPTERS = [
    ("The First Chapter", "Lighthouses were first lit with wood fires on open platforms."),
    ("The Second Chapter", "Fresnel lenses let a single lamp be seen from thirty kilometres away."),
    ("The Third Chapter", "Automation retired the last keepers of the coast in the nineteen nineties."),
]
DOCX_CHAPTERS = [
    ("Background", "Our field notes cover forty-two cold-climate homes visited in the winter of 2024."),
    ("Findings", "Homes with floor heating reached a seasonal COP of 3.4 on average."),
]
_CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def _opf(title: str, author: str, count: int) -> str:
    items = "".join(
        f'<item id="c{n}" href="text/chapter%20{n}.xhtml" media-type="application/xhtml+xml"/>'
        for n in range(1, count + 1)
    )
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(1, count + 1))
    return f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:12345</dc:identifier><dc:title>{title}</dc:title>
    <dc:creator>{author}</dc:creator><dc:language>en</dc:language><dc:date>2019-06-01</dc:date>
  </metadata>
  <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="cover" href="cover.jpg" media-type="image/jpeg"/>{items}</manifest>
  <spine><itemref idref="cover"/>{spine}</spine>
</package>"""


def _chapter(title: str, text: str) -> str:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>
<body><section><h1>{title}</h1><p>{text}</p><p>The keepers wrote everything down in their logs.</p>
<ul><li>Oil lamps</li><li>Clockwork rotation</li></ul></section></body></html>"""


def epub_bytes(
    title: str = "A Short History of Lighthouses",
    author: str = "Mary Keeper",
    chapters: list[tuple[str, str]] | None = None,
    drm: bool = False,
) -> bytes:
    """An EPUB 3 with one XHTML document per chapter (a cover image first in the spine)."""
    chapters = chapters or EPUB_CHAPTERS
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        book.writestr("META-INF/container.xml", _CONTAINER)
        book.writestr("OEBPS/content.opf", _opf(title, author, len(chapters)))
        book.writestr("OEBPS/cover.jpg", b"\xff\xd8\xff not really an image")
        for n, (name, text) in enumerate(chapters, 1):
            book.writestr(f"OEBPS/text/chapter {n}.xhtml", _chapter(name, text))
        if drm:
            book.writestr(
                "META-INF/encryption.xml",
                '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
                '<enc:CipherReference URI="OEBPS/text/chapter%201.xhtml"/></enc:CipherData>'
                "</enc:EncryptedData></encryption>",
            )
    return out.getvalue()


def write_docx(path: Path, title: str = "Field notes on heat pumps", author: str = "Sam Field") -> Path:
    """A DOCX with a title, two Heading 1 chapters, and a table."""
    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = author
    document.add_paragraph("Private notes, first draft.")
    for name, text in DOCX_CHAPTERS:
        document.add_heading(name, level=1)
        document.add_paragraph(text)
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, (("Home", "COP"), ("H-17", "3.9")), strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.save(str(path))
    return path
