"""Writing a source's files under assets/ (named by source ID and host) and building its record.

Archive files are replaced atomically but not flushed to disk one by one (archiving many pages
stays fast); task.md and the report are the files written durably."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.files import atomic_write
from deepresearch.core.langdetect import detect_language
from deepresearch.core.urls import host_slug
from deepresearch.core.workspace import Workspace
from deepresearch.sources import injection
from deepresearch.sources.content import Content, sha256_hex
from deepresearch.sources.fetch import Fetched
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.weight import authority, classify_source_type, evidence_weight, recency


@dataclass
class StoreContext:
    """What storing needs besides the content: where, when, and how recency is judged."""

    workspace: Workspace
    research_date: date
    time_scope: str | None = None
    fallback: bool = False
    warning: str = ""


def markdown_document(source_id: str, url: str, fetched: Fetched, content: Content, when: str) -> str:
    """The readable archive: a small header (title, URLs, fetched, published), then the text verbatim."""
    lines = [f"# {content.title or fetched.final_url}", "", f"- Source: {source_id}"]
    lines.append(f"- URL: {fetched.final_url}")
    if url != fetched.final_url:
        lines.append(f"- Requested URL: {url}")
    lines += [f"- Fetched: {when}", f"- Published: {content.published or 'unknown'}"]
    lines += ["", "---", "", content.text.rstrip(), ""]
    return "\n".join(lines)


def store_source(
    ctx: StoreContext, source_id: str, url: str, fetched: Fetched, content: Content
) -> SourceRecord:
    """Write the source's files for `source_id` and return its archived record."""
    ws = ctx.workspace
    stem = f"{source_id}-{host_slug(fetched.final_url)}"
    when = iso_seconds(utc_now())
    folder = ws.asset_dir("pdf" if content.kind == "pdf" else "web")
    markdown = markdown_document(source_id, url, fetched, content, when).encode("utf-8")
    md_path = folder / f"{stem}.md"
    atomic_write(md_path, markdown, durable=False)
    record = SourceRecord(
        url=url, id=source_id, final_url=fetched.final_url, title=content.title or fetched.final_url,
        http_status=fetched.status, content_type=fetched.content_type, fetched=when,
        published=content.published, sha256=sha256_hex(markdown), content_sha256=content.content_sha256,
        archive=ws.relative(md_path), fallback=ctx.fallback,
        warning="; ".join(w for w in (ctx.warning, content.warning) if w),
        kind="pdf" if content.kind == "pdf" else "web", positions="page" if content.kind == "pdf" else "",
    )  # fmt: skip
    if content.kind == "pdf":
        pdf_path = folder / f"{stem}.pdf"
        atomic_write(pdf_path, fetched.body, durable=False)
        record.pdf_path = ws.relative(pdf_path)  # its own hash is content_sha256
    elif content.kind == "web":
        html_path = folder / f"{stem}.html"
        atomic_write(html_path, fetched.body, durable=False)
        record.html_path = ws.relative(html_path)
    images = ws.asset_dir("images")
    if fetched.screenshot:
        atomic_write(images / f"{stem}.png", fetched.screenshot, durable=False)
        record.screenshot_path = ws.relative(images / f"{stem}.png")
    if fetched.page_pdf:
        atomic_write(images / f"{stem}.pdf", fetched.page_pdf, durable=False)
        record.pdf_path = record.pdf_path or ws.relative(images / f"{stem}.pdf")
    _weigh(record, content.text, ctx)
    record.language = detect_language(content.text)
    flag_injection(record, content.text, content.html)
    return record


def flag_injection(record: SourceRecord, *texts: str) -> None:
    """Mark a source that addresses AI agents `suspicious`, saying what was found (injection.py)."""
    findings = injection.scan(*texts)
    if findings:
        record.flags.append(injection.SUSPICIOUS)
        record.warning = "; ".join(w for w in (record.warning, injection.describe(findings)) if w)


def _weigh(record: SourceRecord, text: str, ctx: StoreContext) -> None:
    record.source_type = classify_source_type(record.final_url, record.title, text[:2000])
    record.authority = authority(record.source_type, record.final_url)
    record.recency = recency(record.published, ctx.research_date, ctx.time_scope)
    record.weight = evidence_weight(record.authority, record.recency)
