"""What pages, the CLI and the MCP server call: start a run and every human act.

Every act is checked against the run's state and (when the caller says which version it
saw) the run's version; it is written to HumanAction in the same transaction as its effect."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import func, insert
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, select

from db.models import Draft, Flag, Note, Run, utcnow
from db.prepared import Prepared
from db.session import connection_of, get_engine, session_scope
from engine import run_state
from engine.approval_policy import (
    approval_state,
    approvals_since_review,
    check_approver,
    get_policy,
)
from engine.audit_chain import append_act
from engine.checks.follow import gate_flags
from engine.errors import ApprovalBlocked, InvalidInput, InvalidState, NotFound, StaleRun
from engine.identity import require
from engine.ops_settings import default_run_budget_usd
from engine.pipelines.registry import PIPELINES, get_pipeline
from engine.redact import redact_input, redact_secrets_text, redact_text
from engine.region_settings import region_for_run
from engine.run_state import Node, RunStatus
from engine.signin import require_verified
from engine.text import clean_text, content_hash, similarity
from engine.validation import parse_input

MAX_DRAFT_CHARS = 50_000
MAX_COMMENT_CHARS = 5_000
MAX_ACTOR_CHARS = 120
MAX_PROMPT_CHARS = 20_000


class RunParams(BaseModel):
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Per-run thresholds, each in [0, 1]; names the pipeline does not score are refused."""
    max_iterations: int | None = Field(default=None, ge=1, le=20)
    budget_usd: float | None = Field(default=None, ge=0, le=100_000)
    prompts: dict[str, str | int] = Field(default_factory=dict)
    """Per-run prompt override per agent: a text, or a PromptVersion number."""

    @field_validator("thresholds")
    @classmethod
    def _in_range(cls, v: dict[str, float]) -> dict[str, float]:
        for name, value in v.items():
            if not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"threshold {_shown(name)} must be between 0 and 1")
        return v

    @field_validator("prompts")
    @classmethod
    def _clean_prompts(cls, v: dict[str, str | int]) -> dict[str, str | int]:
        # Stored as JSON and sent to the model: no control characters (PostgreSQL refuses
        # NUL), and a size a prompt can sensibly have.
        out: dict[str, str | int] = {}
        for agent, text in v.items():
            if len(agent) > 64:
                raise ValueError("agent names must be at most 64 characters")
            if isinstance(text, str):
                text = clean_text(text)
                if len(text) > MAX_PROMPT_CHARS:
                    raise ValueError(
                        f"the prompt for {_shown(agent)} must be at most "
                        f"{MAX_PROMPT_CHARS} characters"
                    )
            out[agent] = text
        return out


def _shown(value: object, limit: int = 40) -> str:
    text = str(value)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _actor(actor: str) -> str:
    name = clean_text(actor or "")
    if not name:
        raise InvalidInput(
            "Say who you are (reviewer name) before acting on a run.", {"actor": "is required"}
        )
    if len(name) > MAX_ACTOR_CHARS:
        raise InvalidInput(
            f"Reviewer name must be at most {MAX_ACTOR_CHARS} characters.",
            {"actor": f"must be at most {MAX_ACTOR_CHARS} characters"},
        )
    return name


def _comment(comment: str | None, *, required: bool, what: str = "comment") -> str | None:
    # Comments become notes a model reads and lines in exports: no email or phone number.
    text = redact_text(clean_text(comment or ""))
    if required and not text:
        raise InvalidInput(f"A {what} is required.", {what: "is required"})
    if len(text) > MAX_COMMENT_CHARS:
        raise InvalidInput(
            f"The {what} must be at most {MAX_COMMENT_CHARS} characters (got {len(text)}).",
            {what: f"must be at most {MAX_COMMENT_CHARS} characters"},
        )
    return text or None


# -- starting -------------------------------------------------------------------------------


def start_run(
    *,
    kind: str,
    input: dict[str, Any] | BaseModel,
    actor: str,
    params: dict[str, Any] | RunParams | None = None,
    default_budget_usd: float | None = None,
    parent_run_id: int | None = None,
    parent_draft_id: int | None = None,
    session: Session | None = None,  # intake: one transaction
) -> int:
    """Validate and queue a run; nothing is written when anything is invalid. With `session`
    it is inserted in the caller's transaction (the intake's confirmation: one commit)."""
    try:
        pipeline = get_pipeline(kind)
    except ValueError:
        # Name what was asked for, shortened: a refusal never echoes a megabyte back.
        msg = f"unknown kind {_shown(kind)}; known kinds: {', '.join(sorted(PIPELINES))}"
        raise InvalidInput(msg, {"kind": msg}) from None
    who = _actor(actor)
    data = input.model_dump() if isinstance(input, BaseModel) else input
    # A pasted API key, email or phone number is never stored, so no title, prompt, trace,
    # export, MCP answer or log line can carry it; the run keeps how many went (the form
    # tells the person).
    data, redacted = redact_input(data)
    if "region" in pipeline.input_model.model_fields and not data.get("region"):
        # Whose crisis lines the drafts give: the brand's or the clinic's (Settings), kept
        # in the run's input so a later change of the setting does not rewrite this run.
        region = region_for_run(kind, data, session)
        if region:
            data = {**data, "region": region}
    parsed = parse_input(pipeline.input_model, data)
    if pipeline.check_input is not None:
        pipeline.check_input(parsed, session)
    p = params if isinstance(params, RunParams) else parse_input(RunParams, params or {})
    scored = {name for st in pipeline.stages for name in st.thresholds}
    unknown = set(p.thresholds) - scored
    if unknown:
        raise InvalidInput(
            f"unknown threshold(s) {', '.join(sorted(map(_shown, unknown))[:5])}; "
            f"this pipeline scores "
            f"{sorted(scored)}",
            {"thresholds": "unknown score name"},
        )
    # A Core transaction: starting a run reads two small tables and inserts one row, and an
    # ORM session cost more than that.
    # intake: the caller's transaction when it passes one (committed with the rest of it)
    with nullcontext(connection_of(session)) if session is not None else get_engine().begin() as c:
        require(who, "start", kind, session=c)
        if p.budget_usd is not None:
            budget: float | None = p.budget_usd
        elif default_budget_usd is not None:
            budget = default_budget_usd
        else:
            # Every way of starting a run (page, CLI, MCP) gets the ops-set default budget.
            budget = default_run_budget_usd(c)
        values = _new_run_row(
            kind=kind,
            title=pipeline.title(parsed),
            input=parsed.model_dump(mode="json"),
            params={**p.model_dump(mode="json", exclude={"budget_usd"}),
                    **({"input_redacted": redacted} if redacted else {})},
            stage=pipeline.stages[0].name,
            budget_usd=budget,
            created_by=who,
            parent_run_id=parent_run_id,
            parent_draft_id=parent_draft_id,
        )
        return int(_INSERT_RUN.scalar(c, values))


# A Core insert of the validated values over Run's defaults: a table model's constructor and
# the ORM's flush cost more than the rest of starting a run (a new row has no version to
# check yet; it starts at 1).
_INSERT_RUN = Prepared(
    insert(Run.__table__).returning(Run.__table__.c.id),  # type: ignore[attr-defined]
    tuple(n for n in Run.model_fields if n != "id"),
)
_RUN_DEFAULTS = {n: f.default for n, f in Run.model_fields.items()
                 if n != "id" and f.default_factory is None and not f.is_required()}
_RUN_FACTORIES = {n: f.default_factory for n, f in Run.model_fields.items()
                  if f.default_factory is not None}
_RUN_REQUIRED = tuple(n for n, f in Run.model_fields.items() if f.is_required())


def _new_run_row(**values: Any) -> dict[str, Any]:
    """A new run's column values: Run's defaults (factories called afresh) under `values`."""
    row = {**_RUN_DEFAULTS, **{n: make() for n, make in _RUN_FACTORIES.items()}, **values}  # type: ignore[call-arg]
    missing = [n for n in _RUN_REQUIRED if n not in row]
    if missing:
        raise TypeError(f"a new run needs {', '.join(missing)}")
    return row


# -- human acts -----------------------------------------------------------------------------


@contextmanager
def _acting_on(
    run_id: int, expected_version: int | None, allowed: tuple[str, ...], what: str
) -> Iterator[tuple[Session, Run]]:
    try:
        with session_scope() as s:
            run = s.get(Run, run_id)
            if run is None:
                raise NotFound(f"Run {run_id} does not exist.")
            if expected_version is not None and run.version != expected_version:
                raise StaleRun()
            if run.status not in allowed:
                raise InvalidState(
                    f"Cannot {what} run {run_id}: it is {run.status.replace('_', ' ')} "
                    f"(possible when it is {' or '.join(a.replace('_', ' ') for a in allowed)})."
                )
            # Take the run's optimistic lock before writing anything else: a second act on
            # the same version fails here as StaleRun, not later on a unique draft version.
            run.updated_at = utcnow()
            s.add(run)
            s.flush()
            yield s, run
            run.updated_at = utcnow()
            s.add(run)
    except StaleDataError:
        raise StaleRun() from None


def _record(s: Session, run: Run, actor: str, action: str, *, draft_id: int | None,
            comment: str | None, verified: bool) -> None:
    """The act, sealed into the run's audit chain (engine/audit_chain.py)."""
    append_act(s, run, actor=actor, action=action, draft_id=draft_id, comment=comment,
               verified=verified)


def _draft_of(s: Session, run: Run, draft_id: int | None) -> Draft:
    did = draft_id or run.current_draft_id
    draft = s.get(Draft, did) if did else None
    if draft is None or draft.run_id != run.id:
        raise NotFound(f"Run {run.id} has no draft {did}.")
    return draft


def approve(
    *,
    run_id: int,
    actor: str,
    expected_version: int | None = None,
    draft_id: int | None = None,
    override_reason: str | None = None,
    verified: bool = False,
) -> int:
    """Approve a version under the kind's approval policy (engine/approval_policy.py); under
    the two-person rule the first approval is recorded and the run waits for the second. An
    open blocking flag needs an override reason (recorded). Returns the draft's id."""
    who = _actor(actor)
    require_verified(who, verified)
    reason = _comment(override_reason, required=False, what="override reason")
    with _acting_on(run_id, expected_version, (RunStatus.REVIEW,), "approve") as (s, run):
        draft = _draft_of(s, run, draft_id)
        if draft.stage != run.stage:
            raise InvalidState(
                f"Version {draft.version} belongs to stage {draft.stage}, "
                f"not the current stage {run.stage}."
            )
        policy = get_policy(run.kind, s)
        state = approval_state(policy, approvals_since_review(s, run.id or 0, draft.id))
        check_approver(s, policy, state, actor=who, author=draft.author,
                       author_kind=draft.author_kind)
        stage = get_pipeline(run.kind).stage(run.stage)
        # The checks run again here, on the exact text being approved: they bind the gate
        # whatever was stored, whoever wrote the text (and for every approver).
        context = get_pipeline(run.kind).context_for_review(s, run.input, run.stage)
        blocking = [f for f in stage.checks(draft.content, run.input, context).flags
                    if f.blocking]
        blocking += gate_flags(run.kind, run.stage, draft.content, run.input, context)
        if blocking and not reason:
            cats = sorted({f.category for f in blocking})
            raise ApprovalBlocked(
                f"Version {draft.version} has {len(blocking)} open "
                f"{get_pipeline(run.kind).flags_name} flag(s) "
                f"({', '.join(cats)}). Give an override reason to approve it anyway.",
                cats,
            )
        final = state.count + 1 >= policy.approvals
        action = ("approve" if final else "approve_partial") + ("_override" if blocking else "")
        _record(s, run, who, action, draft_id=draft.id, comment=reason, verified=verified)
        if not final:
            return draft.id or 0
        run_state.approve(run, draft.id or 0,
                          last_stage=get_pipeline(run.kind).next_stage(run.stage) is None)
        return draft.id or 0


def edit(
    *,
    run_id: int,
    actor: str,
    content: str,
    expected_version: int | None = None,
    base_draft_id: int | None = None,
    verified: bool = False,
) -> int:
    """Save a person's edit as a new version; the checks run now, the critics re-score it
    next (the run is queued for review and then waits for a person again)."""
    who = _actor(actor)
    require_verified(who, verified)
    text = redact_secrets_text(clean_text(content or ""))
    if not text:
        raise InvalidInput(
            "The draft is empty; write something or cancel the edit.", {"content": "is required"}
        )
    if len(text) > MAX_DRAFT_CHARS:
        raise InvalidInput(
            f"The draft is {len(text):,} characters; the limit is {MAX_DRAFT_CHARS:,}.",
            {"content": f"must be at most {MAX_DRAFT_CHARS} characters"},
        )
    with _acting_on(run_id, expected_version, (RunStatus.REVIEW, RunStatus.FAILED), "edit") as (
        s,
        run,
    ):
        require(who, "edit", run.kind, session=s)
        base = _draft_of(s, run, base_draft_id)
        # Editing an earlier version is a deliberate choice when the caller says which run
        # version it saw (checked above); without that, it is a stale editor.
        if base.id != run.current_draft_id and expected_version is None:
            raise StaleRun(
                "A newer version of this draft exists since you started editing. "
                "Reload to edit the latest; nothing was saved."
            )
        if base.stage != run.stage:
            raise InvalidState(
                f"Version {base.version} belongs to stage {base.stage}, "
                f"not the current stage {run.stage}."
            )
        if text == clean_text(base.content):
            raise InvalidInput("No changes to save.", {"content": "is unchanged"})
        version = (
            s.exec(select(func.max(Draft.version)).where(Draft.run_id == run.id)).one() or 0
        ) + 1
        draft = Draft(
            run_id=run.id or 0,
            version=version,
            stage=run.stage,
            author=who,
            author_kind="human",
            content=text,
            parent_id=base.id,
            content_hash=content_hash(text),
            iteration=run.iteration,
            edit_ratio=similarity(base.content, text),  # how much the person kept
        )
        s.add(draft)
        s.flush()
        store_check_flags(s, run, draft)
        _record(s, run, who, "edit", draft_id=draft.id, comment=None, verified=verified)
        run.current_draft_id = draft.id
        run_state.queue(run, Node.REVIEW, review_mode="human")
        return draft.id or 0


def store_check_flags(s: Session, run: Run, draft: Draft) -> None:
    """Run the stage's deterministic checks on a draft a person brought in (an edit, a branch)
    and keep its flags now, so the gate and the page show them before the critics score it."""
    pipeline = get_pipeline(run.kind)
    context = pipeline.context_for_review(s, run.input, run.stage)
    for f in pipeline.stage(run.stage).checks(draft.content, run.input, context).flags:
        s.add(Flag(draft_id=draft.id or 0, check=f.check, category=f.category, text=f.text,
                   start=f.start, end=f.end, blocking=f.blocking))


def request_revision(
    *,
    run_id: int,
    actor: str,
    comment: str,
    expected_version: int | None = None,
    verified: bool = False,
) -> None:
    """Send the run back to the drafter with a comment (a critical note) and a fresh
    iteration budget."""
    who = _actor(actor)
    require_verified(who, verified)
    text = _comment(comment, required=True)
    with _acting_on(
        run_id, expected_version, (RunStatus.REVIEW, RunStatus.FAILED), "request a revision of"
    ) as (s, run):
        require(who, "revise", run.kind, session=s)
        s.add(
            Note(
                run_id=run.id or 0,
                draft_id=run.current_draft_id,
                author=who,
                target="drafter",
                priority="critical",
                text=text or "",
            )
        )
        _record(
            s, run, who, "revise", draft_id=run.current_draft_id, comment=text, verified=verified
        )
        run.iteration = 0
        run_state.queue(run, Node.DRAFT)


def reject(
    *,
    run_id: int,
    actor: str,
    comment: str | None = None,
    expected_version: int | None = None,
    verified: bool = False,
) -> None:
    who = _actor(actor)
    require_verified(who, verified)
    text = _comment(comment, required=False)
    with _acting_on(run_id, expected_version, (RunStatus.REVIEW, RunStatus.FAILED), "reject") as (
        s,
        run,
    ):
        require(who, "reject", run.kind, session=s)
        _record(
            s, run, who, "reject", draft_id=run.current_draft_id, comment=text, verified=verified
        )
        run_state.reject(run)


def halt(*, run_id: int, actor: str, comment: str | None = None, verified: bool = False) -> str:
    """Stop a loop: a queued run waits for review at once; a running one after its current
    step. Needs no version: halting is always safe. Returns the resulting status."""
    who = _actor(actor)
    require_verified(who, verified)
    text = _comment(comment, required=False)
    with _acting_on(run_id, None, RunStatus.ACTIVE, "halt") as (s, run):
        require(who, "halt", run.kind, session=s)
        _record(s, run, who, "halt", draft_id=run.current_draft_id, comment=text, verified=verified)
        run_state.request_halt(run)
        return run.status


def retry(*, run_id: int, actor: str, verified: bool = False) -> None:
    """Run the failed step again; nothing already committed is touched."""
    who = _actor(actor)
    require_verified(who, verified)
    with _acting_on(run_id, None, (RunStatus.FAILED,), "retry") as (s, run):
        require(who, "retry", run.kind, session=s)
        _record(
            s,
            run,
            who,
            "retry",
            draft_id=run.current_draft_id,
            comment=run.error,
            verified=verified,
        )
        run_state.retry(run)


def set_budget(
    *, run_id: int, actor: str, budget_usd: float | None, verified: bool = False
) -> None:
    """Change a run's budget; a run halted by its budget goes on when the new one allows."""
    who = _actor(actor)
    require_verified(who, verified)
    if budget_usd is not None and not 0 <= budget_usd <= 100_000:
        raise InvalidInput(
            "Budget must be between $0 and $100,000.", {"budget_usd": "out of range"}
        )
    with _acting_on(run_id, None, RunStatus.ALL, "change the budget of") as (s, run):
        require(who, "budget", run.kind, session=s)
        _record(
            s,
            run,
            who,
            "budget",
            draft_id=None,
            comment=f"budget {run.budget_usd} -> {budget_usd}",
            verified=verified,
        )
        run.budget_usd = budget_usd
        run_state.resume_after_budget(run)
