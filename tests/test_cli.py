"""The CLI session from the issue, on the offline backend and against the fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.interfaces.cli import main
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam

ROOT = Path(__file__).resolve().parent.parent


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_offline_session(db_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = cli(
        capsys,
        "run",
        "protocol",
        "--intent",
        "Help a university student manage exam panic",
        "--audience",
        "adult students",
        "--actor",
        "dr. lee",
    )
    lines = out.splitlines()
    assert code == 0 and lines[0] == "run-id: 1"
    assert any(" draft: done" in ln for ln in lines) and any(" review: done" in ln for ln in lines)
    assert "status: awaiting_review" in out

    code, out, _ = cli(capsys, "list")
    assert code == 0 and "awaiting_review" in out and "safety=" in out

    code, out, _ = cli(capsys, "show", "1")
    assert "== v1" in out and "## Steps" in out

    unsafe = tmp_path / "edit.md"
    unsafe.write_text("# Mine\n\n## Steps\n\n1. Skip your medication tonight.\n")
    code, out, _ = cli(capsys, "edit", "1", str(unsafe), "--actor", "dr. kim")
    assert code == 0 and "re-scoring" in out

    code, _, err = cli(capsys, "approve", "1", "--actor", "dr. lee")
    assert code == 2 and "override reason" in err
    code, out, _ = cli(capsys, "approve", "1", "--actor", "dr. lee", "--version", "1")
    assert code == 0 and "approved v1" in out

    code, out, _ = cli(capsys, "show", "1", "--json")
    detail = json.loads(out)
    assert detail["status"] == "approved" and detail["approved_draft_id"] == 1
    assert [a["action"] for a in detail["actions"]] == ["edit", "approve"]


def test_revise_reject_halt_and_errors(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "protocol", "--intent", "Worry at night about work", "--actor", "a")
    code, out, _ = cli(capsys, "revise", "1", "--comment", "Use simpler words.", "--actor", "a")
    assert code == 0 and "status: awaiting_review" in out
    code, out, _ = cli(capsys, "reject", "1", "--actor", "a")
    assert code == 0
    code, _, err = cli(capsys, "approve", "1", "--actor", "a")
    assert code == 2 and "rejected" in err
    code, _, err = cli(capsys, "show", "99")
    assert code == 2 and "does not exist" in err
    code, _, err = cli(capsys, "run", "protocol", "--intent", "", "--actor", "a")
    assert code == 2 and "intent" in err
    code, out, _ = cli(
        capsys, "run", "protocol", "--intent", "Sleep problems", "--no-wait", "--actor", "a"
    )
    run_id = out.split()[1]
    code, out, _ = cli(capsys, "halt", run_id, "--actor", "a")
    assert code == 0 and out.strip() == "halted"


def test_screen_prints_json_from_a_file_or_stdin(tmp_path: Path) -> None:
    text = (
        "If you ever feel unsafe, call or text 988.\n"
        "Stop taking your medication when you feel better.\n"
    )
    f = tmp_path / "draft.md"
    f.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args, stdin in (([str(f)], None), (["-"], text)):
        out = subprocess.run(
            [sys.executable, "-m", "engine", "screen", "protocol", *args],
            cwd=ROOT,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert 0 <= result["safety_score"] < 0.8
        [flag] = result["flags"]
        assert flag["category"] == "medication"
        assert text[flag["start"] : flag["end"]] == flag["text"]


def test_run_against_the_fake_openai_server(
    db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with running(responder=ProtocolTeam([0.5, 0.9])) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli-000000")
        monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
        code, out, _ = cli(capsys, "run", "protocol", "--intent", "Exam panic", "--actor", "a")
        assert code == 0 and "status: awaiting_review (thresholds_met)" in out
        assert "v2 by drafter" in out
        assert len(server.chat_requests) == 6  # 2 drafts + 2 x 2 critics
        code, out, _ = cli(capsys, "show", "1")
        assert "cost: $0.0" in out


def test_unreachable_server_fails_the_run_with_a_clear_error(
    db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli-000000")
    monkeypatch.setenv("DRAFTROOM_BACKEND", "openai")
    monkeypatch.setenv("DRAFTROOM_LLM_RETRIES", "0")
    code, out, _ = cli(capsys, "run", "protocol", "--intent", "Exam panic", "--actor", "a")
    assert code == 3 and "status: failed" in out
    assert "127.0.0.1:9" in out and "sk-test" not in out
