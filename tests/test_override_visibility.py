"""An approval given over an open flag never looks like a clean one: the Run page's banner
(orange, naming the flags and the reason, not the green "Approved by"), the queue's chip
("approved over 1 flag", not the red "1 flag" of an unresolved one), the command line's list,
and every export (Markdown's approval section, the PDF's footer on every page, JSON's
"approval")."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import service
from engine.exports.formats import export
from engine.run_list import list_runs
from engine.views import get_run
from tests.test_pages import flagged_run, new_run, open_run, texts
from ui.format import flag_chip

REASON = "Reviewed with the prescriber; the line is quoted from their plan."


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def overridden_run() -> int:
    run_id = flagged_run()
    service.approve(run_id=run_id, actor="Dr. Lee", override_reason=REASON)
    return run_id


def clean_run() -> int:
    run_id = new_run()
    service.approve(run_id=run_id, actor="Dr. Lee")
    return run_id


def test_run_page_banner_says_override_in_orange_with_flags_and_reason() -> None:
    run_id = overridden_run()
    at = open_run(run_id)
    assert not at.exception
    assert not [s.value for s in at.success if "Approved" in s.value]  # not the green one
    banner = next(w.value for w in at.warning if "Approved with an override" in w.value)
    assert "1 open flag (medication)" in banner and "quoted from their plan" in banner
    assert "with override" in texts(at)  # the header's badge beside "Approved"

    clean = open_run(clean_run())
    assert any(s.value.startswith("Approved by") for s in clean.success)
    assert not any("override" in w.value for w in clean.warning)


def test_queue_chip_and_cli_list_tell_an_override_from_an_open_flag(capsys) -> None:  # type: ignore[no-untyped-def]
    over, clean = overridden_run(), clean_run()
    runs = {r.id: r for r in list_runs()}
    assert runs[over].overridden and runs[over].open_flags == 1
    assert not runs[clean].overridden
    assert flag_chip(1, True) == ":orange-badge[:material/gpp_maybe: approved over 1 flag]"
    assert flag_chip(1) == ":red-badge[:material/flag: 1 flag]"
    from tests.test_pages import app
    at = app()
    at.switch_page("pages/queue.py").run()
    body = "\n".join(m.value for m in at.markdown)
    assert "approved over 1 flag" in body and ":red-badge[:material/flag: 1 flag]" not in body

    from engine.interfaces.cli import main
    assert main(["list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith(str(over)))
    assert "approved-with-override(flags=1)" in line


def test_markdown_and_json_exports_mark_the_override() -> None:
    run_id = overridden_run()
    detail = get_run(run_id)
    md = str(export(detail, "markdown"))
    footer = md.split("\n---\n", 1)[1]
    assert "**Approval: APPROVED WITH OVERRIDE**" in footer
    assert ("- APPROVED WITH OVERRIDE: this version was approved over an open flag the checks "
            "raised") in footer
    assert "- Overridden flag: medication: “Stop taking your medication" in footer
    data = json.loads(str(export(detail, "json")))
    assert data["approval"]["overridden"] is True
    assert data["approval"]["approvers"][0]["override_reason"] == REASON
    assert data["approval"]["overridden_flags"][0].startswith("medication: ")

    clean = get_run(clean_run())
    assert "OVERRIDE" not in str(export(clean, "markdown"))
    assert json.loads(str(export(clean, "json")))["approval"]["overridden"] is False


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
def test_pdf_footer_says_override_on_every_page(tmp_path: Path) -> None:
    detail = get_run(overridden_run())
    path = tmp_path / "h.pdf"
    path.write_bytes(bytes(export(detail, "pdf")))
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout
    pages = [p for p in text.split("\f") if p.strip()]
    assert pages and all("APPROVED WITH OVERRIDE (1 open flag) by Dr. Lee" in " ".join(p.split())
                         for p in pages)
