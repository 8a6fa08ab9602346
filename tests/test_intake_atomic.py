"""The intake's confirmation is one transaction: the new brand, the campaign run and the
confirming turn are committed together or not at all. Each test breaks the confirmation at
a point between those parts (an exception, or the process killed outright) and shows that
nothing of it was kept, and that the same chat then confirms cleanly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import func, select

from db.intake_tables import Intake, IntakeMessage
from db.models import Brand, Run
from db.session import session_scope
from engine.intake import service, store

DATA = Path(__file__).parent / "data" / "intake_conversations.jsonl"
# A new business (no brand picked): confirming it writes a brand, a run and the turn.
CONV = next(c for line in DATA.read_text().splitlines() if line.strip()
            for c in [json.loads(line)] if not c.get("brand"))
ACTOR = "Maya"
ROOT = Path(__file__).resolve().parents[1]


class Crash(RuntimeError):
    """Stands for anything that stops the process between two writes."""


def _state(intake_id: int) -> dict[str, Any]:
    with session_scope() as s:
        row = s.get(Intake, intake_id)
        assert row is not None
        return {"brands": s.exec(select(func.count()).select_from(Brand)).one(),
                "runs": s.exec(select(func.count()).select_from(Run)).one(),
                "messages": s.exec(select(func.count()).select_from(IntakeMessage)
                                   .where(IntakeMessage.intake_id == intake_id)).one(),
                "status": row.status, "run_id": row.run_id}


def _up_to_confirmation() -> service.IntakeView:
    view = service.start_intake(actor=ACTOR)
    for text in CONV["messages"][:-1]:
        view = service.send_message(intake_id=view.id, text=text, actor=ACTOR)
    assert view.status == "open" and not view.missing
    assert view.messages[-1].awaiting_confirmation, view.messages[-1].text
    return view


def _after(real: Callable[..., Any]) -> Callable[..., Any]:
    """`real`, then a crash: its writes happened, what comes after it does not."""
    def crashing(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise Crash("stopped here")
    return crashing


@pytest.mark.parametrize("where", ["after_brand", "after_run", "after_turn"])
def test_a_crash_inside_the_confirmation_keeps_nothing_of_it(
        where: str, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    view = _up_to_confirmation()
    before = _state(view.id)
    target = {"after_brand": (service, "create_brand"),
              "after_run": (service.run_service, "start_run"),
              "after_turn": (store, "save_turn")}[where]
    with monkeypatch.context() as m:
        m.setattr(*target, _after(getattr(*target)))
        with pytest.raises(Crash):
            service.send_message(intake_id=view.id, text=CONV["messages"][-1], actor=ACTOR)
    # No brand without its run, no run without the confirmed turn, no turn without either.
    assert _state(view.id) == before
    # The chat is where it was: the same confirmation now goes through, once.
    done = service.send_message(intake_id=view.id, text=CONV["messages"][-1], actor=ACTOR)
    after = _state(view.id)
    assert done.status == "done" and after["run_id"] == done.run_id
    assert (after["brands"], after["runs"]) == (before["brands"] + 1, before["runs"] + 1)
    assert after["messages"] == before["messages"] + 3  # the "yes", the summary, "started"


def test_a_refusal_at_the_run_rolls_the_new_brand_back(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal after the brand was written (the person may not start campaigns) used to
    leave the brand saved; now only the turn is kept, with the refusal as a question."""
    view = _up_to_confirmation()
    before = _state(view.id)
    from engine.errors import PermissionDenied

    def refuse(**_: Any) -> int:
        raise PermissionDenied("Maya may not start campaign runs (you have no role yet).")
    monkeypatch.setattr(service.run_service, "start_run", refuse)
    view = service.send_message(intake_id=view.id, text=CONV["messages"][-1], actor=ACTOR)
    after = _state(view.id)
    assert view.status == "open" and "could not start the campaign" in view.messages[-1].text
    assert (after["brands"], after["runs"]) == (before["brands"], before["runs"])
    assert after["messages"] == before["messages"] + 2


_KILLED = """
import os, sys
from engine.intake import service
real = service.run_service.start_run
def start_then_die(**kw):
    real(**kw)
    os._exit(9)   # the process dies with the brand and the run written, the turn not yet
service.run_service.start_run = start_then_die
service.send_message(intake_id=int(sys.argv[1]), text=sys.argv[2], actor="Maya")
"""


def test_a_killed_process_inside_the_confirmation_keeps_nothing_of_it(db_url: str) -> None:
    view = _up_to_confirmation()
    before = _state(view.id)
    env = {**os.environ, "DATABASE_URL": db_url, "DRAFTROOM_BACKEND": "offline"}
    proc = subprocess.run([sys.executable, "-c", _KILLED, str(view.id), CONV["messages"][-1]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 9, proc.stderr
    assert _state(view.id) == before
    done = service.send_message(intake_id=view.id, text=CONV["messages"][-1], actor=ACTOR)
    assert done.status == "done" and _state(view.id)["runs"] == before["runs"] + 1
