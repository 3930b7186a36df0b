"""Text, title and creation date of a PDF document (pypdf)."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from deepresearch.sources.positions import page_marker

PDF_MAGIC = b"%PDF-"


@dataclass
class PdfText:
    """What a PDF holds: its text (each page after its `<!-- page N -->` marker), title and date."""

    text: str
    title: str
    published: str  # ISO date from the document's creation date, or ""
    pages: int
    problem: str = ""  # why no text could be read, when none could


def is_pdf(content_type: str, body: bytes) -> bool:
    """True for a PDF by its content type or its magic bytes (servers often mislabel PDFs)."""
    return content_type == "application/pdf" or body[:1024].lstrip().startswith(PDF_MAGIC)


def pdf_text(data: bytes) -> PdfText:
    """Extract a PDF's text and metadata; a damaged or encrypted PDF yields its problem, not an error."""
    from pypdf import PdfReader  # ~0.2 s of imports: only commands that read a PDF pay them
    from pypdf.errors import PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns on every quirk of real PDFs
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")  # many "encrypted" PDFs only restrict printing: empty user password
        pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
        title = str(info.title or "").strip() if info else ""
        created = info.creation_date if info else None
    except (PyPdfError, ValueError, KeyError, TypeError, NotImplementedError) as exc:
        return PdfText("", "", "", 0, problem=f"cannot read the PDF ({type(exc).__name__}: {exc})")
    # Each page keeps its marker so a quote found in the text can point to its page.
    text = "\n\n".join(
        f"{page_marker(n)}\n\n{page.strip()}" for n, page in enumerate(pages, 1) if page.strip()
    )
    problem = "" if text else "the PDF has no text layer (scanned?); quotes cannot be checked"
    return PdfText(text, title, created.date().isoformat() if created else "", len(pages), problem)
