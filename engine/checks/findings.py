"""What the checks that follow the text return: a finding names the problem, what a reviewer
sees (the sentence, or the comment that was not answered), the note for the drafter and the
score it bounds."""

from __future__ import annotations

from pydantic import BaseModel

from engine.checks.terms import data


class Finding(BaseModel):
    check: str
    """request_coverage | feedback_coverage | no_change | clinical_harm | campaign_consistency"""
    category: str
    """e.g. "request_not_covered", "not_addressed", "off_product"."""
    text: str
    """For the reviewer: the draft's sentence at fault, or the comment that was not answered."""
    note: str
    """For the drafter: what to change."""
    start: int = 0
    end: int = 0
    """Where `text` sits in the draft (0, 0: it is not the draft's text)."""
    score: str | None = None
    """The score this finding bounds (None: it bounds none)."""
    cap: float | None = None


def finding(check: str, kind: str, category: str, text: str, note: str, draft: str = "",
            *, cap: float | None = None, after: int = 0) -> Finding:
    """A finding with the kind's relevant score capped by the data's limit for `category`;
    located in `draft` when its text is a part of it (its first place from `after` on: the
    same sentence in five creators' messages is five places)."""
    at = draft.find(text, after) if draft and text else -1
    limit = cap if cap is not None else data()["caps"].get(category)
    return Finding(check=check, category=category, text=text, note=note,
                   start=max(at, 0), end=at + len(text) if at >= 0 else 0,
                   score=data()["relevant_score"].get(kind) if limit is not None else None,
                   cap=limit)


__all__ = ["Finding", "finding"]
