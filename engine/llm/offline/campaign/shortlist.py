"""The offline creator finder: the CREATORS shortlist from the ranked candidates in the
step's context, answering a person's adds and removes."""

from __future__ import annotations

import re
from typing import Any

from engine.llm.offline.campaign.common import _note_text, brand_name_of, brand_of, stage_feedback
from engine.pipelines.base import DraftTask
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.creators import norm_handle, parse_shortlist
from engine.pipelines.campaign.models import (
    ShortlistDraft,
    ShortlistPick,
)


def _pick(c: dict[str, Any]) -> ShortlistPick:
    return ShortlistPick(handle=c["handle"], match_pct=int(round(float(c.get("match", 0)) * 100)),
                         reasons="; ".join(c.get("reasons", [])) or "matches the brief")


def draft_shortlist(task: DraftTask) -> ShortlistDraft:
    i = task.input
    n = int(i.get("num_creators") or 5)
    candidates: list[dict[str, Any]] = list(task.context.get("candidates", []))
    by_handle = {c["handle"]: c for c in candidates}
    chosen: list[str] = [c["handle"] for c in candidates[:n]]
    if task.previous:
        # Keep the shortlist as it stands (a person may have edited it); answer the notes.
        chosen = [h for h, _ in parse_shortlist(task.previous)] or chosen
        notes = _note_text(task.notes)
        chosen = [h for h in chosen if not re.search(rf"{re.escape(h)}\b[^\n]*not in the "
                                                     "directory", notes)]
    for f in stage_feedback(task):
        for m in re.finditer(r"\b(remove|drop|exclude|without)\s+((?:@[\w.]+[\s,and]*)+)", f, re.I):
            gone = {norm_handle(h) for h in re.findall(r"@[\w.]*\w", m.group(2))}
            chosen = [h for h in chosen if h not in gone]
        for m in re.finditer(r"\b(add|include)\s+((?:@[\w.]+[\s,and]*)+)", f, re.I):
            chosen += [norm_handle(h) for h in re.findall(r"@[\w.]*\w", m.group(2))
                       if norm_handle(h) not in chosen]
    for c in candidates:  # top up to the number asked for
        if len(chosen) >= n:
            break
        if c["handle"] not in chosen:
            chosen.append(c["handle"])
    picks = [_pick(by_handle[h]) if h in by_handle else
             ShortlistPick(handle=h, match_pct=0, reasons="chosen by the reviewer")
             for h in chosen]
    others = [_pick(c) for c in candidates if c["handle"] not in chosen][:5]
    brand = brand_name_of(i, brand_of(task.context))
    channels = ", ".join(LABELS.get(c, c) for c in i.get("channels", []))
    return ShortlistDraft(
        title=f"Creator shortlist: {brand}",
        summary=(f"{len(picks)} creators for {brand}, ranked by how well their niche fits the "
                 f"brief, where they are, engagement, fee against the budget, and whether they "
                 f"can be reached on {channels}."),
        picks=picks, also_considered=others)
