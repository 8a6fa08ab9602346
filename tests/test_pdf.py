"""The print-ready PDF handout: it opens, holds the approved text and the approver, survives
emoji and right-to-left text, and is refused for what is not an approved protocol. Page 1
is rendered to test-artifacts/handout-page1.png (pdftoppm) for a person to look at."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine import service, views
from engine.errors import InvalidState
from engine.exports import pdf as pdf_export
from engine.exports.formats import export
from engine.exports.pdf import parse_handout, protocol_handout
from engine.interfaces.cli import main
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import INTENT

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None
                                   or shutil.which("pdftoppm") is None,
                                   reason="poppler-utils (pdftotext, pdftoppm) not installed")


def drive(run_id: int) -> str:
    assert claim_run(run_id, "w")
    return Supervisor(OfflineBackend(), "w").run_until_idle(run_id)


def approved_run(edit: str | None = None) -> int:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    drive(run_id)
    if edit is not None:
        service.edit(run_id=run_id, actor="Dr. Noor Haddad", content=edit)
        drive(run_id)
    service.approve(run_id=run_id, actor="Dr. Noor Haddad")
    return run_id


def pdf_text(data: bytes, tmp_path: Path) -> str:
    path = tmp_path / "handout.pdf"
    path.write_bytes(data)
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                         capture_output=True, text=True)
    return " ".join(out.stdout.split())


def words(text: str) -> str:
    return " ".join(text.split())


@needs_poppler
def test_handout_holds_the_approved_text_and_approver(db_url: str, tmp_path: Path,
                                                      artifacts: Path) -> None:
    run_id = approved_run()
    d = views.get_run(run_id)
    approved = d.draft(d.approved_draft_id)
    assert approved is not None
    data = export(views.get_run(run_id), "pdf")
    assert data[:5] == b"%PDF-"
    text = pdf_text(data, tmp_path)
    handout = parse_handout(approved.content)
    assert handout.title in text
    for section in handout.sections:
        for _, body in section.blocks:
            for item in [body] if isinstance(body, str) else body:
                assert words(item) in text, item
    when = next(a.at for a in d.actions if a.action == "approve")
    assert (f"Approved by Dr. Noor Haddad (unverified) on {when:%Y-%m-%d} · version "
            f"{approved.version} · Draftroom run {run_id}") in text
    assert "Approval policy met: protocol: one clinician approves (1 of 1 approvals)" in text
    assert "DRAFT" not in text
    assert "Page 1 of" in text and "SAFETY NOTE" in text and "988" in text

    png = artifacts / "handout-page1"
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile",
                    str(tmp_path / "handout.pdf"), str(png)], check=True)
    assert png.with_suffix(".png").stat().st_size > 20_000


@needs_poppler
def test_emoji_and_right_to_left_text_never_break_it(db_url: str, tmp_path: Path,
                                                     artifacts: Path) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    drive(run_id)
    content = views.get_run(run_id).current.content  # type: ignore[union-attr]
    extra = ["How did it feel? 🙂🌿👍🏽", "שאלה: מה הרגשת היום? (Hebrew)", "ما الذي شعرت به؟",
             "今天感觉如何？"]
    content = content.replace("## Reflection\n\n",
                              "## Reflection\n\n" + "".join(f"- {x}\n" for x in extra))
    run_id = approved_run(edit=content)
    data = export(views.get_run(run_id), "pdf")
    (tmp_path / "unicode.pdf").write_bytes(data)
    text = pdf_text(data, tmp_path)
    assert "How did it feel?" in text and "(Hebrew)" in text
    assert set("שאלהמרגשתיו") <= set(text), "Hebrew letters are drawn (in visual order)"
    assert "👍" not in text and "🏽" not in text
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile",
                    str(tmp_path / "unicode.pdf"), str(artifacts / "handout-unicode-page1")],
                   check=True)


@needs_poppler
def test_without_a_unicode_font_it_falls_back_to_the_core_font(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_export, "FONT_DIRS", ())
    monkeypatch.delenv("DRAFTROOM_PDF_FONT_DIR", raising=False)
    assert pdf_export.find_fonts() is None
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    drive(run_id)
    content = views.get_run(run_id).current.content  # type: ignore[union-attr]
    run_id = approved_run(edit=content + "\n\nCafé crème — “quotes” 🙂 שלום\n")
    text = pdf_text(export(views.get_run(run_id), "pdf"), tmp_path)
    assert "Café crème" in text and "Approved by Dr. Noor Haddad" in text


def test_an_unapproved_protocol_prints_marked_draft_on_every_page(db_url: str,
                                                                    tmp_path: Path) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    with pytest.raises(InvalidState, match="no draft yet"):
        export(views.get_run(run_id), "pdf")
    drive(run_id)
    with pytest.raises(InvalidState, match="not approved yet"):
        protocol_handout(views.get_run(run_id), approved_only=True)
    long = views.get_run(run_id).current.content + "".join(  # type: ignore[union-attr]
        f"\n\n## Extra {i}\n\n" + "A calm, longer paragraph to fill the page. " * 30
        for i in range(6))
    service.edit(run_id=run_id, actor="dr. lee", content=long)
    drive(run_id)
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler-utils not installed")
    path = tmp_path / "draft.pdf"
    path.write_bytes(export(views.get_run(run_id), "pdf"))  # type: ignore[arg-type]
    pages = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                           capture_output=True, text=True).stdout.split("\f")
    pages = [p for p in pages if p.strip()]
    assert len(pages) >= 2
    for page in pages:
        assert "DRAFT - NOT APPROVED" in page
    assert "Approved by" not in " ".join(pages)


def test_parse_handout_reads_a_person_edited_layout() -> None:
    md = ("# Worry time\n\nIntro line.\n\n## Purpose\n\nSet aside **one** time a day\nfor "
          "worries.\n\n## Steps\n\n1. Pick a time\n   that suits you.\n2) Write worries "
          "down.\n\n- A tip\n\n## Reflection\n\n* What changed?\n\n## Safety note\n\nCall "
          "988 if you feel unsafe.\n\n## Extra\n\nNotes for the clinician.\n")
    h = parse_handout(md)
    assert h.title == "Worry time"
    assert [s.heading for s in h.sections] == ["", "Purpose", "Steps", "Reflection",
                                               "Safety note", "Extra"]
    assert h.sections[0].blocks == [("p", "Intro line.")]
    assert h.section("purpose").blocks == [("p", "Set aside one time a day for worries.")]  # type: ignore[union-attr]
    assert h.section("steps").blocks == [  # type: ignore[union-attr]
        ("ol", ["Pick a time that suits you.", "Write worries down."]), ("ul", ["A tip"])]
    assert h.section("reflection").blocks == [("ul", ["What changed?"])]  # type: ignore[union-attr]
    assert parse_handout("Just text").title == "CBT exercise"


@needs_poppler
def test_cli_writes_the_pdf(db_url: str, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    run_id = approved_run()
    out = tmp_path / "h.pdf"
    assert main(["export", str(run_id), "--format", "pdf", "-o", str(out)]) == 0
    assert out.read_bytes()[:5] == b"%PDF-" and f"wrote {out}" in capsys.readouterr().out
    assert main(["export", str(run_id + 1), "--format", "pdf"]) == 2
