"""SQLModel tables. Every state change of a run lives here, never only in memory."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Index, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import declared_attr
from sqlmodel import Field, SQLModel

# JSONB on PostgreSQL, plain JSON elsewhere. JSON columns are always reassigned,
# never mutated in place (in-place mutation is silently not saved).
JSONType = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    # sqlmodel 0.0.50 stores datetimes as UTCDateTime and refuses naive values.
    return datetime.now(UTC)


class Run(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True, max_length=32)
    title: str = Field(max_length=300)
    input: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    params: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    # engine.run_state: the statuses (RunStatus) and every legal change between them.
    status: str = Field(default="queued", max_length=32)
    stage: str = Field(default="draft", max_length=32)
    # Which node the supervisor runs next: draft | review | decide | None (idle).
    next_node: str | None = Field(default="draft", max_length=16)
    # After a review: "loop" lets the supervisor revise; "human" halts for review
    # (a person's edit is re-scored, never rewritten by an agent behind their back).
    review_mode: str = Field(default="loop", max_length=16)
    iteration: int = 0  # agent drafts written in the current cycle
    halt_reason: str | None = Field(default=None, max_length=64)
    halt_requested: bool = False
    error: str | None = None
    current_draft_id: int | None = None
    best_draft_id: int | None = None
    approved_draft_id: int | None = None
    budget_usd: float | None = None
    cost_usd: float = 0.0
    created_by: str = Field(default="", max_length=120)
    created_at: datetime = Field(default_factory=utcnow)  # ix_run_ops leads with it
    updated_at: datetime = Field(default_factory=utcnow)
    lease_owner: str | None = Field(default=None, max_length=120)
    lease_expires: datetime | None = None
    parent_run_id: int | None = None
    parent_draft_id: int | None = None
    version: int = Field(default=1)
    # -- who reviews it, and the head of its audit chain (engine/assignment.py, audit_chain.py)
    assigned_to: str | None = Field(default=None, max_length=130)
    """A person (engine.identity.person_key) or "role:<role>"; None: anyone who may."""
    audit_head: str | None = Field(default=None, max_length=64)
    """The hash of the run's last human act: a deleted last act breaks the chain too."""

    __table_args__ = (Index("ix_run_status_created", "status", "created_at"),)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:  # noqa: N805
        return {"version_id_col": cls.__table__.c.version}


class Draft(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id")  # uq_draft_run_version leads with it
    version: int  # 1, 2, 3 ... within the run
    stage: str = Field(default="draft", max_length=32)
    author: str = Field(max_length=120)  # agent name, or "person:<name>"
    author_kind: str = Field(default="agent", max_length=16)  # agent | human
    content: str
    parent_id: int | None = None
    content_hash: str = Field(max_length=64)
    iteration: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    # The critics' verdict on this version where their rubric has one (a campaign Evaluator):
    # REVISE when any said so, else PASS; None when no critic gives one. Binds the gate.
    verdict: str | None = Field(default=None, max_length=16)
    # A person's version: how much of its parent they kept (engine.text.similarity, 1.0 =
    # unchanged); None for agents' versions. The Calibration view averages it.
    edit_ratio: float | None = None

    __table_args__ = (UniqueConstraint("run_id", "version", name="uq_draft_run_version"),)


class Score(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    draft_id: int = Field(foreign_key="draft.id")  # uq_score_draft_name leads with it
    name: str = Field(max_length=64)
    value: float  # the binding value in [0, 1]
    llm_value: float | None = None  # what the critic said, before the checks bound it
    check_value: float | None = None  # what the deterministic checks allow
    source: str = Field(default="", max_length=120)  # the critic that gave it

    __table_args__ = (UniqueConstraint("draft_id", "name", name="uq_score_draft_name"),)


class Flag(SQLModel, table=True):
    """A deterministic check's finding on one draft version; binds the approval gate."""

    id: int | None = Field(default=None, primary_key=True)
    draft_id: int = Field(foreign_key="draft.id", index=True)
    check: str = Field(max_length=64)  # safety_screen, channel_rules, claims ...
    category: str = Field(max_length=64)
    text: str
    start: int
    end: int
    blocking: bool = True


class Note(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    draft_id: int | None = Field(default=None, foreign_key="draft.id")
    author: str = Field(max_length=120)
    target: str = Field(default="broadcast", max_length=64)
    priority: str = Field(default="info", max_length=16)  # info | warning | critical
    text: str
    created_at: datetime = Field(default_factory=utcnow)


class Step(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id")  # uq_step_run_seq leads with it
    seq: int
    node: str = Field(max_length=16)
    stage: str = Field(default="draft", max_length=32)
    iteration: int = 0
    status: str = Field(default="running", max_length=16)  # running|done|error|abandoned
    worker: str | None = Field(default=None, max_length=120)
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    draft_id: int | None = None
    detail: str | None = None
    error: str | None = None

    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_step_run_seq"),)


class LLMCall(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, foreign_key="run.id")
    # No index: calls are looked up by run (ix_llmcall_run), never by step.
    step_id: int | None = Field(default=None, foreign_key="step.id")
    agent: str = Field(max_length=64)
    backend: str = Field(max_length=32)
    model: str = Field(max_length=120)
    kind: str = Field(default="", max_length=32)
    stage: str = Field(default="", max_length=32)
    prompt_version: int | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None = unpriced model, never shown as $0
    latency_ms: float = 0.0
    status: str = Field(default="ok", max_length=16)  # ok | error
    error: str | None = None
    attempts: int = 1
    request: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    response: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    started_at: datetime = Field(default_factory=utcnow)
    # realmodel (issue 16): the call's HTTP requests are LLMAttempt rows with this key; its
    # tokens and cost are their sum.
    call_key: str | None = Field(default=None, max_length=32)
    # A server default too: bulk inserts that predate the column (seed_demo) leave it out.
    reasoning_tokens: int = Field(default=0, sa_column_kwargs={"server_default": "0"})

    __table_args__ = (
        Index("ix_llmcall_started", "started_at"),
        Index("ix_llmcall_run", "run_id", "started_at"),
    )


class HumanAction(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    draft_id: int | None = Field(default=None, foreign_key="draft.id")
    actor: str = Field(max_length=120)
    verified: bool = False  # True only when the name came from a login
    action: str = Field(max_length=32)  # approve|edit|revise|reject|halt|retry|override
    comment: str | None = None
    at: datetime = Field(default_factory=utcnow)
    # -- the tamper-evident chain (engine/audit_chain.py): sha256 over this act's content and
    # the previous act's hash in the same run.
    prev_hash: str | None = Field(default=None, max_length=64)
    hash: str | None = Field(default=None, max_length=64)


class PromptVersion(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    agent: str = Field(max_length=64, index=True)
    version: int
    text: str
    author: str = Field(default="system", max_length=120)
    active: bool = False
    created_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (UniqueConstraint("agent", "version", name="uq_prompt_agent_version"),)


class ModelPrice(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    model: str = Field(max_length=120, index=True)  # exact name or a glob pattern
    input_per_m: float
    cached_input_per_m: float
    output_per_m: float
    effective_from: datetime = Field(default_factory=lambda: datetime(2024, 1, 1, tzinfo=UTC))


class Role(SQLModel, table=True):
    """What a person may do: clinician | marketer | ops | admin (engine/identity.py).
    While the table is empty everyone may do everything, so a new install can be set up."""

    id: int | None = Field(default=None, primary_key=True)
    person: str = Field(max_length=120, index=True)
    """The person's name as they sign in, normalised (engine.identity.person_key)."""
    role: str = Field(max_length=16)
    granted_by: str = Field(default="", max_length=120)
    created_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (UniqueConstraint("person", "role", name="uq_role_person_role"),)


class Brand(SQLModel, table=True):
    """A brand profile (the "business card" plus voice and what to avoid), for campaigns."""

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=120, unique=True, index=True)
    name: str = Field(max_length=120)
    website: str = Field(default="", max_length=300)
    social_links: list[str] = Field(default_factory=list, sa_type=JSONType)
    location: str = Field(default="", max_length=200)
    service_type: str = Field(default="", max_length=200)
    voice: str = Field(default="")
    audience: str = Field(default="")
    products: list[str] = Field(default_factory=list, sa_type=JSONType)
    avoid_words: list[str] = Field(default_factory=list, sa_type=JSONType)
    avoid_claims: list[str] = Field(default_factory=list, sa_type=JSONType)
    sample: bool = False  # shipped as data (engine/data/brands.json)
    created_by: str = Field(default="", max_length=120)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Creator(SQLModel, table=True):
    """One entry of the creator directory that campaigns shortlist from."""

    id: int | None = Field(default=None, primary_key=True)
    handle: str = Field(max_length=120, unique=True, index=True)  # "@name", lower case
    name: str = Field(max_length=200)
    platform: str = Field(max_length=32)  # instagram | tiktok | youtube | linkedin ...
    niche: str = Field(max_length=200)
    audience_size: int = 0
    location: str = Field(default="", max_length=200)
    engagement_rate: float = 0.0  # percent, e.g. 4.2
    contact_channel: str = Field(default="email", max_length=32)  # a campaign channel (channels.py)
    fee_usd: float = 0.0  # typical fee for one sponsored post
    bio: str = Field(default="")


class Setting(SQLModel, table=True):
    """Ops settings (engine/ops_settings.py): monthly budgets per kind, the default run budget."""

    key: str = Field(primary_key=True, max_length=64)
    value: str = ""
    """JSON text; engine/ops_settings.py parses and validates it."""
    updated_by: str = Field(default="", max_length=120)
    updated_at: datetime = Field(default_factory=utcnow)


class CallRollup(SQLModel, table=True):
    """LLMCall totals per UTC day, kind, model, agent and stage, kept in step by database
    triggers (engine/rollup.py): the Costs page sums thousands of these rows, not millions
    of calls."""

    day: date = Field(primary_key=True)
    kind: str = Field(primary_key=True, max_length=32)
    model: str = Field(primary_key=True, max_length=120)
    agent: str = Field(primary_key=True, max_length=64)
    stage: str = Field(primary_key=True, max_length=32)
    calls: int = Field(default=0, sa_type=BigInteger)
    errors: int = Field(default=0, sa_type=BigInteger)
    unpriced: int = Field(default=0, sa_type=BigInteger)
    """Successful calls of a model with no price: their cost is unknown, never $0."""
    cost_usd: float = 0.0
    prompt_tokens: int = Field(default=0, sa_type=BigInteger)  # includes cached tokens
    cached_tokens: int = Field(default=0, sa_type=BigInteger)
    completion_tokens: int = Field(default=0, sa_type=BigInteger)
    latency_ms: float = 0.0  # sum; divide by calls for the mean

    __table_args__ = {"sqlite_with_rowid": False}


class CallLatency(SQLModel, table=True):
    """A latency histogram per CallRollup key: log-spaced buckets (engine/rollup.py), so
    percentiles over any filter come from a few thousand rows."""

    # Key order: percentiles group by (agent, model, bucket) and stream in this order.
    agent: str = Field(primary_key=True, max_length=64)
    model: str = Field(primary_key=True, max_length=120)
    bucket: int = Field(primary_key=True)
    day: date = Field(primary_key=True)
    kind: str = Field(primary_key=True, max_length=32)
    stage: str = Field(primary_key=True, max_length=32)
    n: int = Field(default=0, sa_type=BigInteger)

    __table_args__ = {"sqlite_with_rowid": False}


# Covering indexes for the Costs page's run counts, most expensive runs and approvals.
OPS_INDEXES = (
    Index("ix_run_ops", Run.created_at, Run.kind, Run.cost_usd, Run.status),
    Index("ix_humanaction_ops", HumanAction.action, HumanAction.at, HumanAction.run_id),
)
# -- perf (issue 15, pages at scale): the queue's page of runs sorted by status and last
# update without reading the rows (covering), and its reviewer filter's list of people.
QUEUE_INDEXES = (
    Index("ix_run_status_updated", Run.status, Run.updated_at, Run.id),
    Index("ix_run_created_by", Run.created_by),
    Index("ix_humanaction_actor", HumanAction.actor),
    Index("ix_run_assigned_to", Run.assigned_to),  # "Assigned to me", on every queue load
)
# -- scale (issue 15, Calibration at 1M calls): what people did in a date window (covering),
# the people's own versions by date, and a critic's prompt version in a run by one seek.
CALIBRATION_INDEXES = (
    Index("ix_humanaction_at", HumanAction.at, HumanAction.action, HumanAction.draft_id),
    Index("ix_draft_author_kind", Draft.author_kind, Draft.created_at),
    Index("ix_llmcall_run_agent", LLMCall.run_id, LLMCall.agent, LLMCall.prompt_version),
)


# -- realmodel (issue 16): what a server can do, and every HTTP request of a model call -------


class ModelCapability(SQLModel, table=True):
    """What one (server, model) was found to accept or refuse, learned once for every worker:
    e.g. json_schema refused, so calls go straight to JSON mode."""

    id: int | None = Field(default=None, primary_key=True)
    base_url: str = Field(max_length=300)
    model: str = Field(max_length=120)
    feature: str = Field(max_length=48)
    """json_schema | json_object | temperature | max_tokens | moderation | ..."""
    supported: bool
    detail: str | None = None
    """The server's own words when it refused."""
    learned_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (UniqueConstraint("base_url", "model", "feature", name="uq_capability"),)


class LLMAttempt(SQLModel, table=True):
    """One HTTP request of a model call (first try, fallback, repair, retry), with what it
    cost: the LLMCall row with the same call_key holds their sums."""

    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, foreign_key="run.id")
    call_key: str = Field(max_length=32)
    seq: int = 0
    kind: str = Field(max_length=16)
    outcome: str = Field(max_length=16)
    mode: str = Field(default="", max_length=16)
    http_status: int | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0
    error: str | None = None
    started_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (Index("ix_llmattempt_run", "run_id", "call_key"),)


# -- clinic: MCP bearer tokens (engine/mcp_token.py) --------------------------------------------


class ApiToken(SQLModel, table=True):
    """A bearer token for MCP over HTTP. Only its SHA-256 is stored; the token itself is shown
    once, when it is made. Acts done with it are recorded under its name."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120, unique=True)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    created_by: str = Field(default="", max_length=120)
    created_at: datetime = Field(default_factory=utcnow)
    revoked: bool = False


class LiveDraft(SQLModel, table=True):
    """realmodel (issue 16): the drafter's answer as it streams in, for the Run page; written a
    few times a second in transactions of its own, never in the step's, and shown only while
    its step runs: a committed version replaces it, a killed step's leftover is never one."""

    run_id: int = Field(foreign_key="run.id", primary_key=True)
    step_id: int | None = None
    agent: str = Field(default="", max_length=64)
    text: str = ""
    chars: int = 0
    """Characters of the model's raw answer so far."""
    updated_at: datetime = Field(default_factory=utcnow)


# -- full-text search over run titles (engine/run_search.py): an FTS5 table (and its shadow
# tables) on SQLite, an expression index on PostgreSQL. No model describes them: migration
# 0007 makes them, and Alembic's comparison leaves them out (include_name below).
RUN_SEARCH = "run_search"


def described_by_models(name: str | None, type_: str, parent_names: object) -> bool:
    """Alembic's include_name hook: every name but the run title search's."""
    return not (name or "").startswith(RUN_SEARCH)


# -- ops: who changed roles and approval policies (engine/team_trail.py; the Team page) ---------


class RoleChange(SQLModel, table=True):
    """One change to who may do what: a role given or taken away, an approval policy set.
    Roles themselves live in Role (the current state); this is the trail of how they got so."""

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    actor: str = Field(max_length=120)
    """Who made the change (engine.identity.person_key)."""
    verified: bool = False
    """True only when the actor's name came from a sign-in."""
    action: str = Field(max_length=16)
    """grant | revoke | policy"""
    person: str | None = Field(default=None, max_length=120)
    role: str | None = Field(default=None, max_length=16)
    detail: str = ""
    """For a policy: what it now says (ApprovalPolicy.describe)."""
