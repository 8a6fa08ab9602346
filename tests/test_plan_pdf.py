"""A campaign's plan as a PDF: its tables as tables, the approver in the footer, DRAFT on
every page until the plan is approved; written by `python -m engine export --format pdf`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine import service, views
from engine.exports.formats import export
from engine.interfaces.cli import main
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                reason="poppler-utils not installed")


def text_of(data: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "plan.pdf"
    path.write_bytes(data)
    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                         capture_output=True, text=True).stdout
    return [page for page in out.split("\f") if page.strip()]


def test_the_plan_prints_with_its_tables_draft_until_approved(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = start(channels=["sms", "email"])
    drive(run_id)
    for _ in range(3):
        approve_and_advance(run_id)
    draft_pages = text_of(export(views.get_run(run_id), "pdf"), tmp_path)  # type: ignore[arg-type]
    assert all("DRAFT - NOT APPROVED" in page for page in draft_pages)

    service.approve(run_id=run_id, actor=ACTOR)
    out = tmp_path / "campaign.pdf"
    assert main(["export", str(run_id), "--format", "pdf", "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    pages = text_of(out.read_bytes(), tmp_path)
    text = "\n".join(pages)
    assert "DRAFT" not in text
    assert "CAMPAIGN PLAN" in text and "Campaign plan: Alma Cafe" in text
    # A table row keeps its cells on one line: creator, deliverables, window, fee, channel.
    plan = views.get_run(run_id).draft(views.get_run(run_id).approved_draft_id)
    handle = next(line.split("|")[1].strip().split()[0] for line in plan.content.splitlines()  # type: ignore[union-attr]
                  if line.startswith("| @"))
    row = next(line for line in text.splitlines() if handle in line)
    assert "1 reel + 2 stories" in row and "Week" in row
    assert any("Total" in line and "3,000" in line for line in text.splitlines())
    assert all(f"approved by {ACTOR} on " in page for page in pages)
