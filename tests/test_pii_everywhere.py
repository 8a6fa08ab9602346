"""PII stays in: an email and phone numbers typed into a run's input never reach the model
(the fake OpenAI server records every request), the run's title, any export (Markdown, JSON,
PDF, every trace format), an MCP answer, a log line, or the database file itself; the Start
form tells the person what was taken out."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import run_list, service, views
from engine.exports.formats import export
from engine.interfaces.cli import main
from testkit.fake_openai import running
from tests.test_mcp import ROOT, call, stdio
from tests.utils.team import ProtocolTeam

EMAIL = "jane.roe@example.org"
PHONES = ("+1 415 555 0134", "415-555-0199")
INTENT = (f"Help Jane Roe ({EMAIL}, {PHONES[0]}) manage exam panic; her sister's number is "
          f"{PHONES[1]}.")
RAW = (EMAIL, "jane.roe@", *PHONES, "555 0134", "555-0199", "4155550134")


def leaks(text: str) -> list[str]:
    return [r for r in RAW if r in text]


def test_no_raw_email_or_phone_anywhere(db_url: str, tmp_path: Path, capsys,  # type: ignore[no-untyped-def]
                                        caplog: pytest.LogCaptureFixture,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG)
    with running(responder=ProtocolTeam()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-pii-000000")
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        assert main(["run", "protocol", "--intent", INTENT, "--actor", "dr. lee"]) == 0
        sent = json.dumps([r.body for r in server.chat_requests])
    assert server.chat_requests and "[email]" in sent and "[phone]" in sent
    assert leaks(sent) == [], "the model received PII"

    run_id = run_list.list_runs(limit=1)[0].id
    d = views.get_run(run_id)
    assert leaks(d.title) == [] and "[email]" in d.title
    assert d.params["input_redacted"] == {"email": 1, "phone": 2}

    outputs = [sent, d.model_dump_json(), export(views.get_run(run_id), "markdown")]
    for fmt in ("jsonl", "summary", "otlp"):
        assert main(["export-trace", str(run_id), "--format", fmt]) == 0
    assert main(["export", str(run_id), "--format", "json"]) == 0
    assert main(["show", str(run_id)]) == 0
    service.approve(run_id=run_id, actor="dr. lee", override_reason="reviewed")
    assert main(["export", str(run_id), "--format", "md"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err, caplog.text]
    if shutil.which("pdftotext"):
        pdf = tmp_path / "run.pdf"
        pdf.write_bytes(export(views.get_run(run_id), "pdf"))
        outputs.append(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                      text=True, check=True).stdout)

    async def mcp() -> list[str]:
        async with stdio(db_url) as c:
            got = await call(c, "get_run", run_id=run_id)
            listed = await c.call_tool("list_awaiting_review", {})
            md = await c.call_tool("export_run", {"run_id": run_id})
            return [json.dumps(got), str(listed.content), str(md.content)]

    outputs += asyncio.run(asyncio.wait_for(mcp(), timeout=120))
    for i, text in enumerate(outputs):
        assert leaks(text) == [], f"output {i} carries PII: {leaks(text)}"

    # Nothing in the database file (and its write-ahead log) either.
    db = Path(db_url.removeprefix("sqlite:///"))
    stored = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    for raw in RAW:
        assert raw.encode() not in stored, raw


def test_a_log_line_never_carries_them(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    from engine.redact import install_log_redaction

    install_log_redaction()
    logging.getLogger("draftroom.test").warning("input was %s", INTENT)
    assert leaks(caplog.text) == [] and "[email]" in caplog.text


def test_the_start_form_says_what_was_taken_out(db_url: str) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "dr. lee"
    at.run()
    at.text_area(key="p_intent").set_value(INTENT)
    next(b for b in at.button if b.label == "Start drafting").click().run()
    assert not at.exception, [e.value for e in at.exception]
    warning = " ".join(w.value for w in at.warning)
    assert "1 email address and 2 phone numbers" in warning, warning
    assert leaks(" ".join(m.value for m in at.markdown)) == []
    assert run_list.list_runs(limit=1)[0].title.count("[phone]") >= 1
