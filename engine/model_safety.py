"""With a real model configured, the model's own safety judgement joins the deterministic
screen (issue 14 item 2): the Safety Guardian's critical notes that quote a sentence of the
draft become flags, and the moderation endpoint (where the server has one) is asked about each
sentence for self-harm. Their flags bind the approval gate like the screen's; the screen still
runs on every draft, whoever wrote it, and is never replaced.

The moderation request is recorded as a call of the run (free, but it is a request made on the
run's behalf). A compatible server without /moderations is skipped quietly: its first 404 is
learned as a capability, so no later review asks again.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import openai

from engine.checks.base import FlagOut
from engine.checks.sentences import split_sentences
from engine.llm.base import Attempt, Usage, now
from engine.pipelines.base import Review

GUARDIAN = "safety_guardian"
MODERATION_MODEL = "omni-moderation-latest"
SELF_HARM = ("self-harm", "self-harm/intent", "self-harm/instructions")
_QUOTED = re.compile(r"[\"“”']([^\"“”]{12,}?)[\"“”']")
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="moderation")


def guardian_flags(content: str, reviews: list[tuple[str, Review]]) -> list[FlagOut]:
    """The Safety Guardian's critical notes, each as a flag on the sentence it quotes (a note
    that quotes nothing of the draft stays a note: a flag must name its sentence)."""
    flags: list[FlagOut] = []
    for name, review in reviews:
        if name != GUARDIAN:
            continue
        for note in review.notes:
            if note.priority != "critical":
                continue
            for quote in _QUOTED.findall(note.text):
                start = content.find(quote.strip())
                if start < 0:
                    continue
                span = _sentence_around(content, start, start + len(quote.strip()))
                flags.append(FlagOut(category="model_safety", text=content[span[0]:span[1]],
                                     start=span[0], end=span[1], check="safety_guardian"))
                break
    return _unique(flags)


def _sentence_around(content: str, start: int, end: int) -> tuple[int, int]:
    for s, e in split_sentences(content):
        if s <= start < e:
            return s, max(e, end)
    return start, end


def _unique(flags: list[FlagOut]) -> list[FlagOut]:
    seen: set[tuple[int, int, str]] = set()
    out = []
    for f in flags:
        if (f.start, f.end, f.check) not in seen:
            seen.add((f.start, f.end, f.check))
            out.append(f)
    return out


def start_moderation(backend: Any, content: str) -> Future[Any] | None:
    """Ask the moderation endpoint about every sentence, next to the critics; None when the
    backend is offline or its server is known to have no such endpoint."""
    caps = getattr(backend, "caps", None)
    if getattr(backend, "name", "") != "openai" or caps is None or not caps.allows("moderation"):
        return None
    return _POOL.submit(moderate, backend, content)


def moderate(backend: Any, content: str) -> tuple[list[FlagOut], dict[str, Any] | None]:
    """(flags, the call's record) or ([], None) when the server has no moderation endpoint."""
    spans = split_sentences(content) or [(0, len(content))]
    started, t0 = now(), time.perf_counter()
    try:
        result = backend.client.moderations.create(
            model=MODERATION_MODEL, input=[content[s:e] for s, e in spans])
    except openai.APIStatusError as e:
        if e.status_code in (404, 405, 501):  # no such endpoint here: learned, asked no more
            backend.caps.learn("moderation", False, f"HTTP {e.status_code}")
            return [], None
        return [], _record(backend, started, t0, spans, status=e.status_code, error=str(e))
    except openai.OpenAIError as e:
        return [], _record(backend, started, t0, spans, status=None, error=str(e))
    backend.caps.learn("moderation", True)
    flags, found = [], []
    for (s, e), r in zip(spans, result.results, strict=False):
        hit = [c for c in SELF_HARM if _category(r, c)]
        if hit:
            found.append({"sentence": content[s:e], "categories": hit})
            flags.append(FlagOut(category="self_harm", text=content[s:e], start=s, end=e,
                                 check="moderation"))
    return flags, _record(backend, started, t0, spans, status=200, found=found)


def _category(result: Any, name: str) -> bool:
    # The SDK's field names (self_harm_intent) for the API's ("self-harm/intent").
    return bool(getattr(result.categories, name.replace("-", "_").replace("/", "_"), False))


def _record(backend: Any, started: Any, t0: float, spans: list[tuple[int, int]], *,
            status: int | None, error: str | None = None,
            found: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    ms = (time.perf_counter() - t0) * 1000
    attempt = Attempt("first", "ok" if error is None else "error", "moderation", status,
                      Usage(), ms, started, error)
    return {"latency_ms": ms, "started_at": started, "status": "ok" if error is None else
            "error", "error": error, "sentences": len(spans), "found": found or [],
            "attempt": attempt}


def finish_moderation(future: Future[Any] | None, timeout: float = 60.0
                      ) -> tuple[list[FlagOut], dict[str, Any] | None]:
    if future is None:
        return [], None
    try:
        return future.result(timeout=timeout)
    except Exception:  # noqa: BLE001 - a second opinion must never fail the review
        return [], None


def model_judgement(
    backend: Any, content: str, reviews: list[tuple[str, Review]],
    moderation: Future[Any] | None, ctx: Any,
) -> tuple[list[FlagOut], list[tuple[str, Any]]]:
    """The flags a real model's review adds to the deterministic ones, and the critical notes
    for the drafter that the moderation's flags become; the moderation call is recorded."""
    from engine.loop.agents import save_calls
    from engine.pipelines.base import NoteOut

    if getattr(backend, "name", "") != "openai":
        return [], []
    flags = guardian_flags(content, reviews)
    found, info = finish_moderation(moderation)
    if info is not None:
        record = {
            "run_id": ctx.run_id, "step_id": ctx.step_id, "agent": "moderation",
            "backend": backend.name, "model": MODERATION_MODEL, "kind": ctx.kind,
            "stage": ctx.stage, "prompt_version": None, "cost_usd": 0.0,  # free of charge
            "latency_ms": info["latency_ms"], "status": info["status"],
            "error": info["error"], "attempts": 1, "started_at": info["started_at"],
            "request": {"sentences": info["sentences"], "categories": list(SELF_HARM)},
            "response": {"flagged": info["found"]},
        }
        if ctx.pending is not None:
            ctx.pending.append(record)
        else:
            save_calls([record])
    notes = [("moderation", NoteOut(target="drafter", priority="critical",
                                    text=f'self-harm (moderation): rewrite or remove "{f.text}"'))
             for f in found]
    return _unique(flags + found), notes
