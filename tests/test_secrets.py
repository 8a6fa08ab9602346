"""Secrets and privacy: a planted API key and planted emails and phone numbers go through a run
against the fake server (in the intent, in every model answer, in an error the server sends
back, in a comment a person pastes). Afterwards every text column of every table, the exports,
the CLI's output and the captured logs are scanned: the key is never there, and emails and
phone numbers are redacted from stored requests and responses, errors and logs
(DRAFTROOM_REDACT_PII=0 keeps the PII, never the key).

What people and models write as the exercise itself (the intent, drafts, notes) is the
clinical content and is kept as written: redacting phone numbers there would also strip a
crisis line ("call 0800 1111") from a protocol."""

from __future__ import annotations

import json
import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import String, Text, inspect, select
from sqlalchemy.types import JSON
from sqlmodel import SQLModel

from db.session import get_engine
from engine import service, views
from engine.exports.formats import export
from engine.loop.worker import Worker
from testkit.fake_openai import FakeOpenAI, Reply
from tests.utils.team import SECOND_DRAFT, ProtocolTeam

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-planted-" + secrets.token_hex(16)
EMAIL = "jane.doe@example.com"
PHONE = "+1 (415) 555-0134"
PHONE_DIGITS = "5550134"
CONTENT_COLUMNS = {("run", "input"), ("run", "title"), ("draft", "content"), ("note", "text"),
                   ("humanaction", "comment")}
"""The exercise, and people's comments on it, as they were written: kept as written."""


def _texts(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def scan_database() -> dict[tuple[str, str], list[str]]:
    """Every text and JSON value of every table, by (table, column)."""
    out: dict[tuple[str, str], list[str]] = {}
    eng = get_engine()
    with eng.connect() as conn:
        present = set(inspect(conn).get_table_names())
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in present:
                continue
            cols = [c for c in table.columns if isinstance(c.type, String | Text | JSON)
                    or "JSON" in type(c.type).__name__ or "String" in type(c.type).__name__]
            if not cols:
                continue
            for row in conn.execute(select(*cols)):
                for col, value in zip(cols, row, strict=True):
                    if value is not None:
                        out.setdefault((table.name, col.name), []).append(_texts(value))
    return out


def _has_pii(text: str) -> bool:
    digits = "".join(ch for ch in text if ch.isdigit())
    return EMAIL in text or PHONE in text or PHONE_DIGITS in digits


@pytest.fixture
def planted(db_any: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    team = ProtocolTeam(echo=f"Write to {EMAIL} or call {PHONE}. Key: {KEY}")
    with FakeOpenAI(api_key=KEY, responder=team) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        yield server


def _run_everything(server: FakeOpenAI, caplog: pytest.LogCaptureFixture) -> tuple[int, str]:
    """One run through two iterations, an error that echoes the key, a retry, comments."""
    intent = (f"Help my client (email {EMAIL}, phone {PHONE}) with exam panic {SECOND_DRAFT}. "
              f"Our key is {KEY}.")
    for name in (None, "openai", "httpx2", "httpcore2", "httpx", "httpcore"):
        caplog.set_level(logging.DEBUG, logger=name)  # libraries log request bodies at DEBUG
    run_id = service.start_run(kind="protocol", actor="dr. lee",
                               input={"intent": intent, "audience": "adult students"})
    worker = Worker(poll_seconds=0.05)
    # The server fails once with a message that quotes the key and the client's email.
    server.script([Reply.server_error(message=f"upstream rejected {KEY} for {EMAIL}")] * 4)
    worker.run_given(run_id)
    d = views.get_run(run_id)
    assert d.status == "failed", d.status
    service.retry(run_id=run_id, actor="dr. lee")
    worker.run_given(run_id)
    d = views.get_run(run_id)
    assert d.status == "awaiting_review" and len(d.drafts) == 2, (d.status, d.error)
    service.request_revision(run_id=run_id, actor="dr. lee",
                             comment=f"Please add the helpline; mail {EMAIL}; key {KEY}")
    worker.run_given(run_id)
    service.approve(run_id=run_id, actor="dr. lee", override_reason=f"reviewed, key {KEY}")
    detail = views.get_run(run_id)
    exports = str(export(detail, "markdown")) + str(export(detail, "json"))
    return run_id, exports


def test_planted_key_never_stored_logged_or_exported_and_pii_redacted(
    planted: FakeOpenAI, caplog: pytest.LogCaptureFixture, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], artifacts: Path
) -> None:
    run_id, exports = _run_everything(planted, caplog)
    db = scan_database()
    logs = "\n".join(r.getMessage() for r in caplog.records) + capsys.readouterr().err

    # The key: nowhere, not in any column of any table, log, export.
    with_key = sorted({k for k, values in db.items() for v in values if KEY in v})
    assert not with_key, f"the API key is stored in {with_key}"
    assert KEY not in logs and KEY not in exports
    # And it was really used: the fake server checks the bearer token.
    assert planted.chat_requests and all(
        r.headers.get("authorization") == f"Bearer {KEY}" for r in planted.chat_requests)

    # PII: redacted from every stored request, response and error, and from the logs.
    with_pii = sorted({k for k, values in db.items() for v in values
                       if _has_pii(v) and k not in CONTENT_COLUMNS})
    assert not with_pii, f"PII stored in {with_pii}"
    assert not _has_pii(logs), [line for line in logs.splitlines() if _has_pii(line)][:3]
    calls = db[("llmcall", "request")] + db[("llmcall", "response")]
    assert any("[email]" in c for c in calls) and any("[phone]" in c for c in calls)
    assert any("[api-key]" in v for v in db[("run", "input")])
    retry = [a for a in views.get_run(run_id).actions if a.action == "retry"]
    assert retry and "[email]" in (retry[0].comment or "")  # the error it retried, redacted

    # Every page a person can open on it (the sidebar shows the backend in use, too).
    pages = _page_texts(run_id)
    assert pages and not [name for name, t in pages.items() if KEY in t], list(pages)
    assert "paced breathing" in pages["pages/run.py"]  # the scan sees what is drawn

    # A worker process's own output (what an operator's log collector keeps).
    out = _worker_process_output(planted, tmp_path)
    assert KEY not in out and not _has_pii(out), out[-2000:]
    (artifacts / "secrets.json").write_text(json.dumps({
        "tables_scanned": len({t for t, _ in db}), "values_scanned": sum(map(len, db.values())),
        "log_records": len(caplog.records), "key_found": len(with_key), "pii_outside_content":
        len(with_pii), "llm_calls": len(db[("llmcall", "request")])}, indent=2))


def _page_texts(run_id: int) -> dict[str, str]:
    """Everything the app draws on each page, as text (every element's protobuf)."""
    from streamlit.testing.v1 import AppTest

    # Restored as it was, never popped: unset means "on", and a worker thread started by a
    # later AppTest would outlive its test and drive other tests' runs.
    before = os.environ.get("DRAFTROOM_INAPP_WORKER")
    os.environ["DRAFTROOM_INAPP_WORKER"] = "0"
    out: dict[str, str] = {}
    try:
        for page in ("pages/queue.py", "pages/run.py", "pages/traces.py", "pages/costs.py"):
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
            at.session_state["reviewer"] = "dr. lee"
            at.run()
            at.query_params["run"] = str(run_id)
            at.switch_page(page).run()
            out[page] = "\n".join(str(getattr(node, "proto", "")) for node in at._tree)
    finally:
        if before is None:
            os.environ.pop("DRAFTROOM_INAPP_WORKER", None)
        else:
            os.environ["DRAFTROOM_INAPP_WORKER"] = before
    return out


def _worker_process_output(server: FakeOpenAI, tmp_path: Path) -> str:
    """Stdout and stderr of `python -m engine worker --verbose` driving one planted run."""
    service.start_run(kind="protocol", actor="dr. lee",
                      input={"intent": f"Exam panic; client {EMAIL} {PHONE}; key {KEY}"})
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.run([sys.executable, "-m", "engine", "worker", "--once", "--verbose",
                        "--poll", "0.05"], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout + p.stderr


def test_pii_kept_when_redaction_is_off_but_never_the_key(
    planted: FakeOpenAI, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRAFTROOM_REDACT_PII", "0")
    _run_everything(planted, caplog)
    db = scan_database()
    assert not sorted({k for k, values in db.items() for v in values if KEY in v})
    calls = db[("llmcall", "request")] + db[("llmcall", "response")]
    assert any(EMAIL in c for c in calls) and any(PHONE in c for c in calls)
    assert not any("[email]" in c for c in calls)
    assert KEY not in "\n".join(r.getMessage() for r in caplog.records)


def test_any_library_log_line_is_redacted_once_a_worker_runs(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.redact import install_log_redaction

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    install_log_redaction()
    caplog.set_level(logging.DEBUG, logger="some.http.library")
    logging.getLogger("some.http.library").debug("POST body for %s (%s): auth %s", EMAIL, PHONE,
                                                 KEY)
    line = caplog.records[-1].getMessage()
    assert line == "POST body for [email] ([phone]): auth [api-key]"
