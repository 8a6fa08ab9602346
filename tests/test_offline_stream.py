"""Offline runs can simulate streaming (DRAFTROOM_OFFLINE_STREAM_CPS): the offline drafter's
answer reaches the run's live draft in growing pieces, as a real model's does, so browser tests
and demos watch a draft grow with no model; by default it comes whole, as before."""

from __future__ import annotations

from typing import Any

import pytest

from engine import live_draft, service
from engine.llm.base import AgentCall, LLMError
from engine.llm.offline.backend import OfflineBackend
from engine.loop.worker import Worker
from engine.views import get_run
from tests.factories import INTENT, protocol_draft


def _call(on_text: Any, cancelled: Any = None) -> AgentCall[Any]:
    draft = protocol_draft()
    return AgentCall(agent="drafter", messages=[{"role": "user", "content": "x"}],
                     output_type=type(draft), task=draft, offline=lambda _t: draft,
                     on_text=on_text, cancelled=cancelled)


def test_the_answer_comes_in_growing_pieces_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_OFFLINE_STREAM_CPS", "2000")
    seen: list[tuple[str, bool]] = []
    resp = OfflineBackend().generate(_call(lambda text, final: seen.append((text, final))))
    assert len(seen) > 5
    texts = [t for t, _ in seen]
    assert all(b.startswith(a) and len(b) > len(a) for a, b in zip(texts, texts[1:], strict=False))
    assert seen[-1] == (resp.raw_text, True) and not any(f for _, f in seen[:-1])


def test_without_the_setting_the_answer_comes_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRAFTROOM_OFFLINE_STREAM_CPS", raising=False)
    seen: list[str] = []
    OfflineBackend().generate(_call(lambda text, final: seen.append(text)))
    assert seen == [] and not OfflineBackend().streams


def test_a_halt_stops_a_simulated_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_OFFLINE_STREAM_CPS", "2000")
    seen: list[str] = []
    with pytest.raises(LLMError) as err:
        OfflineBackend().generate(_call(lambda text, final: seen.append(text),
                                        cancelled=lambda: len(seen) >= 2))
    assert err.value.kind == "cancelled" and len(seen) == 2


def test_an_offline_run_writes_its_draft_live_while_it_grows(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRAFTROOM_OFFLINE_STREAM_CPS", "2000")
    monkeypatch.setattr(live_draft, "WRITE_EVERY_S", 0.0)  # every piece, not a few a second
    rows: list[dict[str, Any]] = []
    real = live_draft._upsert
    monkeypatch.setattr(live_draft, "_upsert", lambda row: (rows.append(row), real(row)))
    run_id = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
    assert Worker(backend=OfflineBackend(), concurrency=1).run_given(run_id) == "awaiting_review"
    drafts = [r for r in rows if r["agent"] != "critics"]
    assert len(drafts) > 5
    assert all(len(b["text"]) >= len(a["text"]) for a, b in zip(drafts, drafts[1:], strict=False))
    final = get_run(run_id).drafts[0].content
    assert drafts[-1]["text"] and drafts[0]["text"] != drafts[-1]["text"]
    assert live_draft.live_draft(run_id) is None, "after the step, the version replaces it"
    assert final
