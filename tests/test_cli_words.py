"""The command line says what it means (issue 19): versions, not database ids; why a run has
nothing to review and what to do; notes under their version; help on every command and
option; option errors that name the option; a held lease's expiry; a quiet MCP start; the
campaign export the refusal promises."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from engine import run_list, service, views
from engine.interfaces.cli import main
from engine.interfaces.cli.parser import build_parser
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from tests.factories import GOOD_CLINICAL, GOOD_SAFETY, INTENT, protocol_draft, review
from tests.utils.scripted import ScriptedModel

ROOT = Path(__file__).resolve().parent.parent


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_edit_reports_the_version_it_saved(db_url: str, capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    for _ in range(2):  # so that draft ids and version numbers differ
        cli(capsys, "run", "protocol", "--intent", "Exam panic", "--actor", "dr. lee")
    mine = tmp_path / "mine.md"
    mine.write_text("# Mine\n\n## Steps\n\n1. Breathe in for four counts.\n")
    code, out, _ = cli(capsys, "edit", "2", str(mine), "--actor", "dr. kim", "--no-wait")
    assert code == 0
    assert "saved as version 2; re-scoring" in out
    assert views.get_run(2).current.version == 2  # type: ignore[union-attr]


def test_a_run_stopped_by_its_budget_before_a_draft_says_why_and_what_to_do(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel({"drafter": [protocol_draft()], "safety_guardian": [review(GOOD_SAFETY)],
                           "clinical_critic": [review(GOOD_CLINICAL)]})
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee",
                               params={"budget_usd": 0.0005})  # below the drafter's estimate
    assert claim_run(run_id, "w1")
    assert Supervisor(model, "w1").run_until_idle(run_id) == "awaiting_review"
    assert views.get_run(run_id).drafts == []

    _, out, _ = cli(capsys, "show", str(run_id))
    assert "nothing to review" in out and "stopped at its budget ($0.0005" in out
    assert f"python -m engine budget {run_id} --usd" in out

    code, out, err = cli(capsys, "approve", str(run_id), "--actor", "dr. lee")
    assert code == 2 and "None" not in err
    assert "nothing to review" in err and "Raise the run's budget" in err

    from tests.test_pages import open_run

    page = open_run(run_id)
    warnings = " ".join(w.value for w in page.warning)
    assert "nothing to review" in warnings and "Raise the run's budget" in warnings

    code, out, _ = cli(capsys, "budget", str(run_id), "--usd", "1", "--actor", "dr. lee",
                       "--no-wait")
    assert code == 0 and "budget $1.0000" in out and "queued" in out


def test_show_puts_each_note_under_its_version(db_url: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "protocol", "--intent", "Exam panic", "--actor", "dr. lee")
    cli(capsys, "revise", "1", "--comment", "Shorter steps, please.", "--actor", "dr. lee")
    d = views.get_run(1)
    assert len(d.drafts) >= 2 and d.notes
    version_of = {dr.id: dr.version for dr in d.drafts}
    _, out, _ = cli(capsys, "show", "1")
    under: int | None = None
    seen = 0
    lines = out.splitlines()
    for line in lines:
        if line.startswith("== v"):
            under = int(line[4:].split()[0])
        elif line.lstrip().startswith("note ["):
            seen += 1
            text = line.split(": ", 1)[1]
            expected = {version_of.get(n.draft_id) for n in d.notes if n.text == text}
            assert under in expected, f"{line!r} printed under v{under}"
    assert seen == len(d.notes)
    assert "notes:" not in lines  # no ungrouped block of every version's notes


def undocumented(parser: argparse.ArgumentParser, path: str = "") -> list[str]:
    """Every command, subcommand and option below `parser` without a line of help."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, command in action.choices.items():
                if not helps.get(name):
                    missing.append(f"{path}{name}")
                missing += undocumented(command, f"{path}{name} ")
        elif not action.help:
            missing.append(f"{path}{'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_command_and_option_has_help() -> None:
    parser = build_parser()
    assert undocumented(parser) == []
    text = parser.format_help()
    for name in ("approve", "reject", "halt", "resume", "serve", "budget"):
        assert f"    {name} " in text


@pytest.mark.parametrize("given", ["safety=2", "safety", "safety=high", "=0.5"])
def test_a_bad_threshold_names_the_option_and_its_range(
        db_url: str, capsys: pytest.CaptureFixture[str], given: str) -> None:
    code, _, err = cli(capsys, "run", "protocol", "--intent", "Exam panic",
                       "--threshold", given, "--no-wait")
    assert code == 2
    assert "--threshold" in err and "between 0 and 1" in err and repr(given) in err
    assert "Value error" not in err and "Traceback" not in err
    assert run_list.list_runs() == []  # nothing was started


def test_resume_on_a_run_held_by_a_dead_process_says_when_its_lease_expires(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert claim_run(run_id, "worker-vm-4242-dead")
    until = views.get_run(run_id).lease_expires
    code, _, err = cli(capsys, "resume", str(run_id))
    assert code == 1
    assert "worker-vm-4242-dead" in err and f"until {until:%H:%M:%S} UTC" in err
    assert "being worked on elsewhere" not in err

    approved = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    service.halt(run_id=approved, actor="dr. lee")
    code, _, err = cli(capsys, "resume", str(approved))
    assert code == 1 and "nothing to resume" in err


def test_the_mcp_server_writes_nothing_to_stderr_on_start(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DRAFTROOM_BACKEND": "offline",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.db'}"}  # migrated on this start
    done = subprocess.run([sys.executable, "-m", "engine", "mcp"], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert (tmp_path / "fresh.db").exists()
    assert "alembic" not in done.stderr.lower() and "Context impl" not in done.stderr
    assert done.stderr == ""


def test_a_campaign_exports_its_messages_as_csv_and_a_pdf_once_it_has_a_plan(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_campaign_pipeline import start

    run_id = start(channels=["sms", "email"])
    code, out, _ = cli(capsys, "export", str(run_id), "--format", "csv")
    assert code == 0 and out.startswith("creator_handle,creator_name,channel,")
    code, _, err = cli(capsys, "export", str(run_id), "--format", "pdf")  # no plan yet
    assert code == 2 and "no plan yet" in err and "csv" in err
