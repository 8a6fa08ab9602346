"""Start a new run from any version of any run: the version is the new run's first draft, the
critics score it, and the loop goes on from there (with changed parameters or a person's
guidance if given). Lineage is kept both ways: Run.parent_run_id / parent_draft_id on the
new run, children_of() for the runs branched from one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session, col, select

from db.models import Draft, Note, Run, utcnow
from db.session import session_scope
from engine.audit_chain import append_act
from engine.errors import InvalidInput, NotFound
from engine.identity import require
from engine.pipelines.registry import get_pipeline
from engine.run_state import RunStatus
from engine.service import MAX_COMMENT_CHARS, RunParams, _actor, store_check_flags
from engine.text import clean_text, content_hash
from engine.validation import parse_input

__all__ = ["BranchLink", "Lineage", "branch_run", "children_of", "lineage", "branch_author"]


class BranchLink(BaseModel):
    """One end of a branch: a run, and the version of the parent it started from."""

    run_id: int
    title: str
    status: str
    created_by: str
    created_at: datetime
    draft_id: int | None
    """The parent's draft the branch started from."""
    draft_version: int | None


class Lineage(BaseModel):
    parent: BranchLink | None
    """The run this one was branched from (draft_version: the version it started from)."""
    children: list[BranchLink]
    """Runs branched from this one, oldest first (draft_version: which of its versions)."""


def branch_author(run_id: int, version: int) -> str:
    return f"branch of run {run_id} v{version}"


def _params(source: Run, params: dict[str, Any] | RunParams | None) -> RunParams:
    """The parent's parameters with the given ones laid over them; internal keys ("_...")
    are the parent's business and are not carried over."""
    merged = {k: v for k, v in (source.params or {}).items() if not k.startswith("_")}
    given = (params.model_dump(exclude_unset=True) if isinstance(params, RunParams)
             else dict(params or {}))
    for key, value in given.items():
        if key in ("thresholds", "prompts") and isinstance(value, dict):
            merged[key] = {**(merged.get(key) or {}), **value}
        else:
            merged[key] = value
    return parse_input(RunParams, merged)


def _guidance(text: str | None) -> str | None:
    body = clean_text(text or "")
    if len(body) > MAX_COMMENT_CHARS:
        raise InvalidInput(f"The guidance must be at most {MAX_COMMENT_CHARS} characters "
                           f"(got {len(body)}).",
                           {"guidance": f"must be at most {MAX_COMMENT_CHARS} characters"})
    return body or None


def branch_run(*, run_id: int, draft_id: int, actor: str,
               params: dict[str, Any] | RunParams | None = None,
               guidance: str | None = None, verified: bool = False) -> int:
    """Queue a new run whose first draft is a copy of `draft_id` (a version of `run_id`).
    Without guidance the critics score the copy first and the supervisor decides; with
    guidance (a critical note to the drafter) the drafter revises the copy first, so the
    guidance is acted on even when the copy already met every threshold. Returns its id."""
    who = _actor(actor)
    note = _guidance(guidance)
    with session_scope() as s:
        source = s.get(Run, run_id)
        draft = s.get(Draft, draft_id)
        if source is None:
            raise NotFound(f"Run {run_id} does not exist.")
        if draft is None or draft.run_id != run_id:
            raise NotFound(f"Run {run_id} has no draft {draft_id}.")
        pipeline = get_pipeline(source.kind)
        if draft.stage != pipeline.stages[0].name:
            raise InvalidInput(f"Version {draft.version} belongs to the {draft.stage} stage; a "
                               f"new run can start only from a version of the first stage "
                               f"({pipeline.stages[0].name}), where nothing earlier is needed.",
                               {"draft_id": "not in the first stage"})
        require(who, "start", source.kind, session=s)
        p = _params(source, params)
        scored = {name for st in pipeline.stages for name in st.thresholds}
        unknown = set(p.thresholds) - scored
        if unknown:
            raise InvalidInput(f"unknown threshold(s) {sorted(unknown)}; this pipeline scores "
                               f"{sorted(scored)}", {"thresholds": "unknown score name"})
        parsed = parse_input(pipeline.input_model, source.input)
        run = Run(kind=source.kind, title=pipeline.title(parsed),
                  input=parsed.model_dump(mode="json"),
                  params=p.model_dump(mode="json", exclude={"budget_usd"}),
                  stage=draft.stage, budget_usd=p.budget_usd if p.budget_usd is not None
                  else source.budget_usd, created_by=who, parent_run_id=source.id,
                  parent_draft_id=draft.id, status=RunStatus.QUEUED,
                  next_node="draft" if note else "review", review_mode="loop", iteration=0)
        s.add(run)
        s.flush()
        copy = _copy_draft(s, run, source, draft)
        if note:
            s.add(Note(run_id=run.id or 0, draft_id=copy.id, author=who, target="drafter",
                       priority="critical", text=note))
        append_act(s, run, actor=who, action="branch", draft_id=copy.id, verified=verified,
                   comment=f"from run {source.id} v{draft.version}"
                   + (f": {note}" if note else ""))
        # The worker may pick the run up from here on: it is complete in this same commit.
        run.current_draft_id = copy.id
        run.updated_at = utcnow()
        s.add(run)
        return run.id or 0


def _copy_draft(s: Session, run: Run, source: Run, draft: Draft) -> Draft:
    copy = Draft(run_id=run.id or 0, version=1, stage=draft.stage,
                 author=branch_author(source.id or 0, draft.version),
                 author_kind=draft.author_kind, content=draft.content, parent_id=None,
                 content_hash=content_hash(draft.content), iteration=0)
    s.add(copy)
    s.flush()
    store_check_flags(s, run, copy)  # the copy carries its flags from the start
    return copy


def _link(run: Run, draft: Draft | None) -> BranchLink:
    return BranchLink(run_id=run.id or 0, title=run.title, status=run.status,
                      created_by=run.created_by, created_at=run.created_at,
                      draft_id=draft.id if draft else None,
                      draft_version=draft.version if draft else None)


def children_of(run_id: int) -> list[BranchLink]:
    """Runs branched from `run_id`, oldest first, each with the version it started from."""
    with session_scope() as s:
        rows = s.exec(select(Run, Draft).join(Draft, col(Draft.id) == Run.parent_draft_id,
                                              isouter=True)
                      .where(Run.parent_run_id == run_id)
                      .order_by(col(Run.created_at), col(Run.id))).all()
        return [_link(r, d) for r, d in rows]


def lineage(run_id: int) -> Lineage:
    """Where the run came from and what was branched from it."""
    with session_scope() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"Run {run_id} does not exist.")
        parent = s.get(Run, run.parent_run_id) if run.parent_run_id else None
        pdraft = s.get(Draft, run.parent_draft_id) if run.parent_draft_id else None
        link = None
        if parent is not None:
            # The link names the parent run and the parent's version this run started from.
            link = _link(parent, pdraft)
    return Lineage(parent=link, children=children_of(run_id))
