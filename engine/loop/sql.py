"""The SQL the supervisor loop runs, as Core statements built once and run on the DB-API
cursor (db.prepared: SQLAlchemy's per-execution machinery cost more than the statements; see
bench/RESULTS.md), and the run row the loop reads and writes with the same optimistic lock as
Run's version_id_col."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import (
    Float,
    Integer,
    String,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.engine import Connection
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session

from db.models import Draft, Flag, HumanAction, LLMCall, Note, PromptVersion, Run, Score, Step
from db.prepared import Prepared
from db.session import get_engine
from engine.pipelines.base import AgentSpec
from engine.prompts import ResolvedPrompt, resolve_prompt

# -- statements ---------------------------------------------------------
# Core statements on the tables, compiled once per dialect (db.prepared). Parameters are named
# b_* so they never clash with the column names SQLAlchemy binds in VALUES and SET clauses.

RUN_T = Run.__table__  # type: ignore[attr-defined]
STEP_T = Step.__table__  # type: ignore[attr-defined]
DRAFT_T = Draft.__table__  # type: ignore[attr-defined]
SCORE_T = Score.__table__  # type: ignore[attr-defined]
FLAG_T = Flag.__table__  # type: ignore[attr-defined]
NOTE_T = Note.__table__  # type: ignore[attr-defined]
ACTION_T = HumanAction.__table__  # type: ignore[attr-defined]
PROMPT_T = PromptVersion.__table__  # type: ignore[attr-defined]
CALL_T = LLMCall.__table__  # type: ignore[attr-defined]


def param(name: str, like: Any = None) -> Any:
    return bindparam(name, type_=like.type) if like is not None else bindparam(name)


SEL_RUN = Prepared(select(RUN_T).where(RUN_T.c.id == param("b_run")))
SEL_STATUS = Prepared(select(RUN_T.c.status).where(RUN_T.c.id == param("b_run")))
ABANDON_STEPS = Prepared(
    update(STEP_T)
    .where(STEP_T.c.run_id == param("b_run"), STEP_T.c.status == "running")
    .values(status="abandoned", finished_at=param("b_now", STEP_T.c.finished_at))
)
MAX_SEQ = Prepared(select(func.max(STEP_T.c.seq)).where(STEP_T.c.run_id == param("b_run")))
_STEP_KEYS = ("run_id", "seq", "node", "stage", "iteration", "worker", "started_at")
INSERT_STEP = Prepared(insert(STEP_T).returning(STEP_T.c.id), _STEP_KEYS)
# A step written whole, done (the supervisor's decision).
INSERT_DONE_STEP = Prepared(
    insert(STEP_T), _STEP_KEYS + ("status", "finished_at", "detail")
)
# Only a step still running: one another drive abandoned (it took the run over, perhaps in
# this same worker: same lease owner) is not this drive's to finish.
FINISH_STEP = Prepared(
    update(STEP_T)
    .where(STEP_T.c.id == param("b_step"), STEP_T.c.status == "running")
    .values(
        status="done",
        finished_at=param("b_now", STEP_T.c.finished_at),
        detail=param("b_detail", STEP_T.c.detail),
        draft_id=param("b_draft", STEP_T.c.draft_id),
    )
)
SEL_CONTENT = Prepared(select(DRAFT_T.c.content).where(DRAFT_T.c.id == param("b_draft")))
MAX_VERSION = Prepared(
    select(func.max(DRAFT_T.c.version)).where(DRAFT_T.c.run_id == param("b_run"))
)
INSERT_DRAFT = Prepared(
    insert(DRAFT_T).returning(DRAFT_T.c.id),
    ("run_id", "version", "stage", "author", "author_kind", "content", "parent_id",
     "content_hash", "iteration", "created_at"),
)
SEL_DRAFTER_NOTES = Prepared(
    select(NOTE_T.c.target, NOTE_T.c.priority, NOTE_T.c.text)
    .where(
        NOTE_T.c.run_id == param("b_run"),
        NOTE_T.c.draft_id == param("b_draft"),
        or_(NOTE_T.c.target == "drafter", NOTE_T.c.target == "broadcast"),
    )
    .order_by(NOTE_T.c.id)
)
# A person's comments on this stage's drafts (a campaign's brief feedback is not for outreach).
SEL_FEEDBACK = Prepared(
    select(ACTION_T.c.comment)
    .select_from(ACTION_T.outerjoin(DRAFT_T, DRAFT_T.c.id == ACTION_T.c.draft_id))
    .where(
        ACTION_T.c.run_id == param("b_run"),
        ACTION_T.c.action == "revise",
        or_(DRAFT_T.c.stage == param("b_stage"), ACTION_T.c.draft_id.is_(None)),
    )
    .order_by(ACTION_T.c.at)
)
# Every active prompt's agent (a handful of rows): an IN list of the step's agents would be an
# "expanding" parameter, whose SQL is rendered again at every execution.
SEL_ACTIVE_AGENTS = Prepared(
    select(PROMPT_T.c.agent).where(PROMPT_T.c.active == True)  # noqa: E712
)
DELETE_SCORES = Prepared(delete(SCORE_T).where(SCORE_T.c.draft_id == param("b_draft")))
DELETE_FLAGS = Prepared(delete(FLAG_T).where(FLAG_T.c.draft_id == param("b_draft")))
INSERT_SCORE = Prepared(
    insert(SCORE_T), ("draft_id", "name", "value", "llm_value", "check_value", "source")
)
INSERT_FLAG = Prepared(
    insert(FLAG_T), ("draft_id", "check", "category", "text", "start", "end", "blocking")
)
INSERT_NOTE = Prepared(
    insert(NOTE_T),
    ("run_id", "draft_id", "author", "target", "priority", "text", "created_at"),
)
# Every column but the id: a failed call's row leaves out its tokens (constant defaults);
# its response has a computed default ({}), so the row gives it (see db.prepared).
INSERT_CALL = Prepared(insert(CALL_T), tuple(c.key for c in CALL_T.c if c.key != "id"))
STAGE_DRAFTS = (DRAFT_T.c.run_id == param("b_run"), DRAFT_T.c.stage == param("b_stage"))
# A stage's board in one statement: its versions ("v", draft id, version, verdict), their
# scores ("s", draft id, name, value), blocking flags ("f", draft id, category) and the run's
# spend so far ("c", value); one round trip where four cost four times the statement
# overhead. Typed NULLs keep PostgreSQL's UNION happy.
_NO_INT, _NO_TEXT, _NO_FLOAT = (cast(null(), Integer), cast(null(), String),
                                cast(null(), Float))
SEL_BOARD = Prepared(union_all(
    select(literal("v"), DRAFT_T.c.id, DRAFT_T.c.version, DRAFT_T.c.verdict, _NO_FLOAT)
    .where(*STAGE_DRAFTS),
    select(literal("s"), SCORE_T.c.draft_id, _NO_INT, SCORE_T.c.name, SCORE_T.c.value)
    .join(DRAFT_T, DRAFT_T.c.id == SCORE_T.c.draft_id)
    .where(*STAGE_DRAFTS),
    select(literal("f"), FLAG_T.c.draft_id, _NO_INT, FLAG_T.c.category, _NO_FLOAT)
    .join(DRAFT_T, DRAFT_T.c.id == FLAG_T.c.draft_id)
    .where(*STAGE_DRAFTS, FLAG_T.c.blocking.is_(True)),
    select(literal("c"), _NO_INT, _NO_INT, _NO_TEXT, cast(func.sum(CALL_T.c.cost_usd), Float))
    .where(CALL_T.c.run_id == param("b_run")),
))
# A current draft that is not on its stage's board (the decision reads its scores and flags).
SEL_SCORES = Prepared(
    select(SCORE_T.c.name, SCORE_T.c.value).where(SCORE_T.c.draft_id == param("b_draft"))
)
SEL_BLOCKING = Prepared(
    select(FLAG_T.c.category)
    .where(FLAG_T.c.draft_id == param("b_draft"), FLAG_T.c.blocking.is_(True))
)
SEL_VERDICT = Prepared(select(DRAFT_T.c.verdict).where(DRAFT_T.c.id == param("b_draft")))
SET_VERDICT = Prepared(
    update(DRAFT_T).where(DRAFT_T.c.id == param("b_draft"))
    .values(verdict=param("b_verdict", DRAFT_T.c.verdict))
)
# A draft's text beside its parent's (the version it revised), to tell a revision that changed
# nothing.
_PARENT = DRAFT_T.alias("parent")
SEL_WITH_PARENT = Prepared(
    select(DRAFT_T.c.content, _PARENT.c.id, _PARENT.c.version, _PARENT.c.content)
    .join(_PARENT, _PARENT.c.id == DRAFT_T.c.parent_id)
    .where(DRAFT_T.c.id == param("b_draft"))
)
SEL_SAME_TEXT = Prepared(
    select(DRAFT_T.c.id, DRAFT_T.c.version)
    .where(DRAFT_T.c.run_id == param("b_run"), DRAFT_T.c.content == param("b_text"))
)
SEL_SPEND = Prepared(
    select(func.sum(CALL_T.c.cost_usd)).where(CALL_T.c.run_id == param("b_run"))
)
UPDATE_RUN: dict[frozenset[str], Prepared] = {}


class LoopTx:
    """One transaction of the loop: a Core connection, and an ORM session on the same
    transaction made only when a pipeline hook asks for one (a campaign's stage context, a
    prompt override). Most steps need none, and a Session cost more than their statements."""

    def __init__(self, c: Connection) -> None:
        self.c = c
        self._session: Session | None = None

    @property
    def session(self) -> Session:
        if self._session is None:
            # Joins the connection's transaction; closing it leaves that transaction alone.
            self._session = Session(bind=self.c)
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


@contextmanager
def loop_transaction(conn: Connection | None = None) -> Iterator[LoopTx]:
    """A transaction that commits on success and rolls back on error, without an ORM
    session unless one is asked for; on `conn` when given (a worker holds one for a run's
    steps), else on a connection from the pool."""
    if conn is None:
        with get_engine().begin() as c, _loop_tx(c) as tx:
            yield tx
    else:
        with conn.begin(), _loop_tx(conn) as tx:
            yield tx


@contextmanager
def _loop_tx(c: Connection) -> Iterator[LoopTx]:
    tx = LoopTx(c)
    try:
        yield tx
    finally:
        tx.close()


def draft_content(
    c: Connection, draft_id: int | None, known: dict[int | None, str] | None = None
) -> str | None:
    """A draft's text: from `known` (texts the caller holds already, by id), else read."""
    if known and draft_id in known:
        return known[draft_id]
    return SEL_CONTENT.scalar(c, {"b_draft": draft_id}) if draft_id else None


def run_spend(c: Connection, run_id: int) -> float:
    """USD of a run's recorded calls (unpriced calls count as nothing known)."""
    return float(SEL_SPEND.scalar(c, {"b_run": run_id}) or 0.0)


def prompts_for(
    tx: LoopTx, agents: tuple[AgentSpec, ...], params: dict[str, Any]
) -> dict[str, ResolvedPrompt]:
    """resolve_prompt for each agent, skipping its queries where one query shows that
    nothing overrides the default in code (no per-run prompt, no active version)."""
    if not agents:
        return {}
    overrides = params.get("prompts") or {}
    active = {a for (a,) in SEL_ACTIVE_AGENTS.rows(tx.c)}
    return {
        a.name: resolve_prompt(tx.session, agent=a.name, default=a.system_prompt, params=params)
        if a.name in overrides or a.name in active
        else ResolvedPrompt(a.system_prompt, None, "code")
        for a in agents
    }


# Run's optimistic lock as its mapper declares it (version_id_col and the generator of the next
# value): RunRow.save and the lease claim check and bump the same column the ORM does.
RUN_LOCK = sa_inspect(Run)
VERSION_COL = RUN_LOCK.version_id_col


def next_version(version: int) -> int:
    return int(RUN_LOCK.version_id_generator(version))


class RunRow:
    """A run as the loop reads and writes it, without the ORM: attributes named like Run's
    columns; `save` writes the changed ones under Run's optimistic lock (an UPDATE that finds
    another version raises StaleDataError, as an ORM flush does)."""

    _cols = tuple(col.name for col in RUN_T.c)
    _version = VERSION_COL.key

    def __init__(self, row: Any) -> None:
        object.__setattr__(self, "_changed", set())
        for name in self._cols:
            object.__setattr__(self, name, row[name])

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, name) != value:
            self._changed.add(name)
        object.__setattr__(self, name, value)

    @classmethod
    def load(cls, c: Connection, run_id: int) -> RunRow | None:
        rows = SEL_RUN.mappings(c, {"b_run": run_id})
        return cls(rows[0]) if rows else None

    def save(self, c: Connection) -> None:
        changed: set[str] = self._changed
        if not changed:
            return
        cols = frozenset(changed)
        stmt = UPDATE_RUN.get(cols)
        if stmt is None:
            stmt = Prepared(
                update(RUN_T)
                .where(RUN_T.c.id == param("b_run"), VERSION_COL == param("b_version"))
                .values(
                    {name: param(f"b_{name}", RUN_T.c[name]) for name in sorted(cols)}
                    | {self._version: param("b_new_version", VERSION_COL)}
                )
            )
            UPDATE_RUN[cols] = stmt
        version = getattr(self, self._version)
        params = {f"b_{name}": getattr(self, name) for name in cols}
        params.update(b_run=self.id, b_version=version, b_new_version=next_version(version))
        if stmt.run(c, params) != 1:
            raise StaleDataError(f"run {self.id} changed since it was read (version {version})")
        object.__setattr__(self, self._version, next_version(version))
        changed.clear()


