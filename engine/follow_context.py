"""What the checks that follow the text need from the database, read in the transaction that
opens a review step (the checks themselves read nothing: engine/checks/follow.py):
the version the draft revises, who wrote the draft, every comment people made on this
stage's earlier versions (each with the text it was made about), the critical notes of the
critics and checks on the previous version, and a campaign's approved earlier stages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, or_, select
from sqlalchemy.engine import Connection

from db.models import Brand, Draft, HumanAction, Note, Run
from db.prepared import Prepared
from engine.checks.feedback_coverage import Comment
from engine.checks.follow import FollowInput

FOLLOW_AUTHOR = "follow_checks"
"""Who the follow checks' notes are by (their own notes are not judged again: the comment or
request behind each one is)."""

_DRAFT = Draft.__table__  # type: ignore[attr-defined]
_ACTION = HumanAction.__table__  # type: ignore[attr-defined]
_NOTE = Note.__table__  # type: ignore[attr-defined]
_PARENT = _DRAFT.alias("parent")

SEL_DRAFT = Prepared(
    select(_DRAFT.c.version, _DRAFT.c.stage, _DRAFT.c.author_kind, _PARENT.c.id,
           _PARENT.c.content)
    .select_from(_DRAFT.outerjoin(_PARENT, _PARENT.c.id == _DRAFT.c.parent_id))
    .where(_DRAFT.c.id == bindparam("b_draft"))
)
# A person's comments on the stage's earlier versions, with the version each was about.
SEL_COMMENTS = Prepared(
    select(_ACTION.c.comment, _DRAFT.c.content)
    .select_from(_ACTION.join(_DRAFT, _DRAFT.c.id == _ACTION.c.draft_id))
    .where(_ACTION.c.run_id == bindparam("b_run"), _ACTION.c.action == "revise",
           _DRAFT.c.stage == bindparam("b_stage"), _DRAFT.c.version < bindparam("b_version"))
    .order_by(_ACTION.c.at)
)
# The critics' and checks' critical notes for the drafter on the previous version.
SEL_CRITICAL = Prepared(
    select(_NOTE.c.author, _NOTE.c.text)
    .where(_NOTE.c.draft_id == bindparam("b_parent"), _NOTE.c.priority == "critical",
           or_(_NOTE.c.target == "drafter", _NOTE.c.target == "broadcast"),
           _NOTE.c.author != FOLLOW_AUTHOR)
    .order_by(_NOTE.c.id)
)
# A campaign's approved stages (the latest approval of each wins).
SEL_APPROVED = Prepared(
    select(_DRAFT.c.stage, _DRAFT.c.content)
    .select_from(_ACTION.join(_DRAFT, _DRAFT.c.id == _ACTION.c.draft_id))
    .where(_ACTION.c.run_id == bindparam("b_run"),
           or_(_ACTION.c.action == "approve", _ACTION.c.action == "approve_override"))
    .order_by(_ACTION.c.at)
)
# The brand's products (what sets the goal's product apart from the brand's others).
SEL_PRODUCTS = Prepared(
    select(Brand.__table__.c.products)  # type: ignore[attr-defined]
    .where(Brand.__table__.c.id == bindparam("b_brand"))  # type: ignore[attr-defined]
)
# The run's first day: a campaign's dates ("by the end of January") count from it, in the
# checks as in the drafters (engine/pipelines/campaign/context.py), not from the wall clock.
SEL_STARTED = Prepared(
    select(Run.__table__.c.created_at)  # type: ignore[attr-defined]
    .where(Run.__table__.c.id == bindparam("b_run"))  # type: ignore[attr-defined]
)
CONTEXT_KEYS = {"brief": "brief", "creators": "shortlist", "outreach": "outreach"}


DraftRow = tuple[int, str, str | None, int | None, str | None]
"""A draft as SEL_DRAFT reads it: version, stage, author kind, parent id, parent's text."""


def load_follow(c: Connection, *, run_id: int, draft_id: int | None, kind: str,
                critics: set[str], brand_id: int | None = None, known: DraftRow | None = None,
                people_acted: bool = True) -> FollowInput:
    """`critics`: the stage's critic names (their notes count as feedback; a person's notes
    come in as comments instead). `known`: the draft's row when the caller holds it (the
    transaction that wrote it; versions never change). `people_acted`: False when no person
    ever acted on the run (Run.audit_head is None: every act moves it, engine/audit_chain.py),
    so there are no comments or approvals to read."""
    if draft_id is None:
        return FollowInput()
    row = known or next(iter(SEL_DRAFT.rows(c, {"b_draft": draft_id})), None)
    if row is None:
        return FollowInput()
    version, stage, author_kind, parent_id, previous = row
    comments = [Comment(text=text, before=before, source="human")
                for text, before in SEL_COMMENTS.rows(
                    c, {"b_run": run_id, "b_stage": stage, "b_version": version})
                if text and text.strip()] if people_acted else []
    if parent_id is not None:
        said = {x.text for x in comments}
        comments += [Comment(text=text, before=previous,
                             source="checks" if author == "checks" else "critic")
                     for author, text in SEL_CRITICAL.rows(c, {"b_parent": parent_id})
                     if (author in critics or author == "checks") and text not in said]
    context: dict[str, Any] = {}
    if kind == "campaign":
        approved = SEL_APPROVED.rows(c, {"b_run": run_id}) if people_acted else []
        context = {CONTEXT_KEYS[s]: text for s, text in approved
                   if s in CONTEXT_KEYS and s != stage}
        products = SEL_PRODUCTS.scalar(c, {"b_brand": brand_id}) if brand_id else None
        context["brand"] = {"products": list(products or [])}
        started = SEL_STARTED.scalar(c, {"b_run": run_id})
        if started is not None:
            context["today"] = _day(started)
    return FollowInput(previous=previous, author_kind=author_kind or "agent",
                       comments=_unique(comments), context=context)


def _day(started: Any) -> str:
    """The ISO day of a timestamp as the driver returns it (a datetime, or SQLite's text)."""
    return started.date().isoformat() if hasattr(started, "date") else str(started)[:10]


def _unique(comments: list[Comment]) -> list[Comment]:
    """A comment made twice (sent back twice with the same words) is judged once, against the
    latest version it was made about."""
    seen: dict[str, Comment] = {}
    for x in comments:
        seen[" ".join(x.text.split()).lower()] = x
    return list(seen.values())


__all__ = ["FOLLOW_AUTHOR", "DraftRow", "load_follow"]
