"""The texts of demo drafts. A protocol run's versions are what the offline drafter writes for
the run's own request and its revisions in answer to the offline Clinical Critic's notes, so a
run titled "Face the body sensations of panic" holds that exercise (not another one under its
title) and no client-facing heading carries a version number. A campaign stage's text is about
the run's own goal. Computed once per request: a seed of a million calls reuses them."""

from __future__ import annotations

from functools import lru_cache

from demo.data import ACTIONS, DRAFTS
from engine.llm.offline.protocol.critics import review_clinical
from engine.llm.offline.protocol.drafter import draft_protocol
from engine.pipelines.base import DraftTask, NoteOut, ReviewTask
from engine.pipelines.protocol.text import render_protocol

MAX_CHAIN = 5
"""Revisions worked out per request: after the offline drafter stops changing its text, later
versions repeat the last one."""


@lru_cache(maxsize=64)
def protocol_versions(intent: str) -> tuple[str, ...]:
    run_input = {"intent": intent, "audience": "adults"}
    texts: list[str] = []
    notes: list[NoteOut] = []
    for iteration in range(1, MAX_CHAIN + 1):
        text = render_protocol(draft_protocol(DraftTask(
            kind="protocol", stage="draft", input=run_input, iteration=iteration,
            previous=texts[-1] if texts else None, notes=notes)))
        if texts and text == texts[-1]:
            break
        texts.append(text)
        review = review_clinical(ReviewTask(kind="protocol", stage="draft", input=run_input,
                                            content=text))
        notes = [n for n in review.notes if n.priority != "info"]
    return tuple(texts)


def draft_text(kind: str, stage: str, title: str, version: int) -> str:
    """Version `version` (from 1) of a run titled `title` at `stage`."""
    if kind == "protocol":
        texts = protocol_versions(title)
        return texts[min(max(version, 1), len(texts)) - 1]
    return DRAFTS[kind].format(stage=stage.replace("_", " ").title(), goal=title,
                               action=ACTIONS[(version - 1) % len(ACTIONS)])


__all__ = ["draft_text", "protocol_versions"]
