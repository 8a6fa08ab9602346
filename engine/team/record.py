"""The loop hooks of a team pipeline: its messages and its memory, written in the transactions
the loop already makes (a step's opening, a step's commit), so a process killed mid-step
leaves no message or memory of the step it did not commit, and the step redone writes them
once. No model is called here: the worker is the stage's drafter, the lead's evaluation is
the critic step and the supervisor's decision on it (engine/loop/)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.engine import Connection

from db.intake_tables import Intake, IntakeMessage
from db.models import utcnow
from db.prepared import Prepared
from db.team_tables import TeamMessage
from engine.loop.sql import ACTION_T, DRAFT_T, STEP_T
from engine.memory import store
from engine.memory.access import CONTEXT_KEY, from_spaces
from engine.memory.store import SHARED, Scope, agent_namespace
from engine.pipelines.base import StageSpec
from engine.team.models import (
    PERSON,
    EvaluationPayload,
    FeedbackPayload,
    Member,
    ResultPayload,
    TaskPayload,
    TeamSpec,
)

MSG_T = TeamMessage.__table__  # type: ignore[attr-defined]
INTAKE_T = Intake.__table__  # type: ignore[attr-defined]
INTAKE_MSG_T = IntakeMessage.__table__  # type: ignore[attr-defined]
INSERT_MSG = Prepared(insert(MSG_T), tuple(c.key for c in MSG_T.c if c.key != "id"))
B_RUN, B_ID = bindparam("b_run"), bindparam("b_id")
SEL_INTAKE = Prepared(select(INTAKE_T.c.id, INTAKE_T.c.card, INTAKE_T.c.created_by)
                      .where(INTAKE_T.c.run_id == B_RUN))
SEL_INTAKE_MSGS = Prepared(select(INTAKE_MSG_T.c.role, INTAKE_MSG_T.c.text)
                           .where(INTAKE_MSG_T.c.intake_id == B_ID)
                           .order_by(INTAKE_MSG_T.c.idx))
SEL_ACTS = Prepared(
    select(ACTION_T.c.actor, ACTION_T.c.action, ACTION_T.c.comment, DRAFT_T.c.stage,
           DRAFT_T.c.version)
    .select_from(ACTION_T.outerjoin(DRAFT_T, DRAFT_T.c.id == ACTION_T.c.draft_id))
    .where(ACTION_T.c.run_id == B_RUN).order_by(ACTION_T.c.at, ACTION_T.c.id))
SEL_STAGE_MSGS = Prepared(select(MSG_T.c.kind, MSG_T.c.sender, MSG_T.c.payload,
                                 MSG_T.c.artifact)
                          .where(MSG_T.c.run_id == B_RUN,
                                 MSG_T.c.stage == bindparam("b_stage")))
SEL_STARTED = Prepared(select(STEP_T.c.started_at).where(STEP_T.c.id == B_ID))
SEL_VERSION = Prepared(select(DRAFT_T.c.version).where(DRAFT_T.c.id == B_ID))
SEL_RESULT_OF = Prepared(select(MSG_T.c.sender, MSG_T.c.artifact).where(
    MSG_T.c.run_id == B_RUN, MSG_T.c.kind == "result", MSG_T.c.draft_id == B_ID))
PROFILE = "profile"
"""A person's namespace the team of each of their runs reads (Creo's user_profile)."""
KEEP = 12
"""How many entries of a memory list (attempts, decisions, searches) are kept."""
CARD_KEYS = ("name", "website", "location", "service_type", "voice", "audience", "products",
             "avoid_words", "avoid_claims")
INPUT_NAMES = {"brand": "the brand profile", "brief": "the approved brief",
               "candidates": "ranked candidate creators", "shortlist": "the approved shortlist",
               "outreach": "the approved outreach", "feedback": "people's comments"}


class TeamHooks:
    """What the supervisor calls for a pipeline with a team (Pipeline.hooks)."""

    def __init__(self, team: TeamSpec, stages: Sequence[StageSpec]) -> None:
        # The pipeline's own stage specs, handed in by its spec (looking them up in the
        # registry from here made a cycle: spec -> registry -> team.record -> registry).
        self.team = team
        self.stages = {s.name: s for s in stages}

    # -- opening a step: what the agent is given from memory ----------------------------------

    def on_open(self, tx: Any, plan: Any) -> None:
        mem = RunMemory(tx.c, plan.run_id)
        if plan.node == "draft" and plan.task is not None:
            _refresh_shared(tx.c, mem, plan, plan.task.context)
            mem.flush()
            worker = self.team.workers[plan.stage].name
            plan.task.context[CONTEXT_KEY] = from_spaces(mem.spaces, worker).model_dump()
        elif plan.node == "review":
            _refresh_shared(tx.c, mem, plan, plan.context)
            mem.flush()
            plan.context[CONTEXT_KEY] = from_spaces(mem.spaces, self.team.lead.name).model_dump()

    # -- committing a step: the messages it stands for, and what it leaves in memory -----------

    def on_commit(self, tx: Any, plan: Any, run: Any, step: Any, result: Any,
                  decision: str) -> None:
        log = _Log(tx.c, plan, self.team, self.stages[plan.stage])
        if plan.node == "draft":
            log.drafted(run, step.draft_id, result)
        elif plan.node == "review":
            notes = [n.note.text for n in sorted(result.notes, key=_urgency)
                     if n.note.target in ("drafter", "broadcast")]
            log.evaluated(run, result, notes, decision)
        elif plan.node == "decide":  # a decision taken apart from its review (after a halt)
            log.decided(run, _notes_of(tx.c, run.current_draft_id), decision)
        elif plan.node == "advance":
            source = f"orchestrator, step {plan.seq}"
            log.mem.merge(SHARED, {"stage": run.stage}, source)
            log.mem.append(SHARED, "decisions", f"people approved the {plan.stage} stage; "
                           f"moving to {run.stage}", source)
        log.flush()


class RunMemory:
    """A run's namespaces as read once in the hook's transaction; each changed namespace is
    written once, by flush(). The loop holds the run's lease, so no one else writes them."""

    def __init__(self, c: Connection, run_id: int) -> None:
        self.c, self.scope = c, Scope.run(run_id)
        self.spaces = store.load_all(c, self.scope)
        self._stored = set(self.spaces)
        self._dirty: set[str] = set()

    def value(self, namespace: str, key: str) -> Any:
        ns = self.spaces.get(namespace)
        return ns.data.get(key) if ns is not None else None

    def merge(self, namespace: str, data: dict[str, Any], source: str) -> None:
        new = store.merged(self.spaces.get(namespace), data, source)
        if new is not None:
            self.spaces[namespace] = new.model_copy(update={"scope": self.scope.key,
                                                            "namespace": namespace})
            self._dirty.add(namespace)

    def append(self, namespace: str, key: str, item: Any, source: str) -> None:
        items = list(self.value(namespace, key) or [])
        self.merge(namespace, {key: (items + [item])[-KEEP:]}, source)

    def flush(self) -> None:
        for name in sorted(self._dirty):
            ns = self.spaces[name]
            store.save(self.c, self.scope, name, ns.data, ns.sources,
                       exists=name in self._stored)
            self._stored.add(name)
        self._dirty.clear()


def _urgency(n: Any) -> int:
    return {"critical": 0, "warning": 1}.get(n.note.priority, 2)


def _notes_of(c: Connection, draft_id: int | None) -> list[str]:
    from db.models import Note

    t = Note.__table__  # type: ignore[attr-defined]
    rows = c.execute(select(t.c.priority, t.c.text).where(
        t.c.draft_id == draft_id, t.c.target.in_(("drafter", "broadcast")))).all()
    order = {"critical": 0, "warning": 1}
    return [text for _, text in sorted(rows, key=lambda r: order.get(r[0], 2))]


def _refresh_shared(c: Connection, mem: RunMemory, plan: Any, context: dict[str, Any]) -> None:
    """What every agent of the run reads: the business card (as confirmed in the intake chat
    the run was started from, else the brand profile), the campaign, the stage, what people
    said. Only what changed is written, so a step redone writes nothing twice."""
    chat = _intake_of(c, plan.run_id)
    if chat is not None and chat["card"]:
        mem.merge(SHARED, {"business_card": chat["card"].get("business") or {},
                           "confirmed_goal": chat["card"].get("campaign") or {}},
                  chat["source"])
    else:
        brand = context.get("brand") or {}
        card = {k: brand[k] for k in CARD_KEYS if brand.get(k) not in (None, "", [])}
        where = (f"brand profile #{plan.input.get('brand_id')} (brands table)"
                 if plan.input.get("brand_id") else "the run's input")
        mem.merge(SHARED, {"business_card": card}, where)
    keep = ("goal", "audience", "budget", "channels", "num_creators")
    mem.merge(SHARED, {"campaign": {k: plan.input.get(k) for k in keep if k in plan.input}},
              "the run's input, as started")
    mem.merge(SHARED, {"stage": plan.stage}, f"orchestrator, step {plan.seq}")
    author = str(getattr(plan.run, "created_by", "") or "")
    profile = store.get(c, Scope.user(author), PROFILE) if author.strip() else None
    if profile is not None and profile.data:  # the author's own memory, read by the team
        mem.merge(SHARED, {"user_profile": profile.data},
                  f"{author}'s own memory (namespace {PROFILE!r})")
    said = (chat["messages"] if chat else []) + _conversation(c, plan.run_id)
    if said:
        mem.merge(SHARED, {"conversation": said[-2 * KEEP:]},
                  ("the intake chat and " if chat else "") + "the run's audit trail "
                  "(people's acts)")


def _intake_of(c: Connection, run_id: int) -> dict[str, Any] | None:
    """The intake chat the run was started from (engine/intake/): its confirmed card and its
    messages; None for a run started from the form."""
    rows = SEL_INTAKE.rows(c, {"b_run": run_id})
    if not rows:
        return None
    intake_id, raw, created_by = rows[0]
    msgs = SEL_INTAKE_MSGS.rows(c, {"b_id": intake_id})
    who = created_by or "the person"
    card = dict(raw or {})
    return {"card": card, "source": f"intake chat #{intake_id}, confirmed by {who}"
            + (f" at {card['confirmed_at']}" if card.get("confirmed_at") else ""),
            "messages": [{"who": who if role == "user" else "onboarding agent",
                          "act": "intake", "said": text[:500]} for role, text in msgs]}


def _conversation(c: Connection, run_id: int) -> list[dict[str, Any]]:
    rows = SEL_ACTS.rows(c, {"b_run": run_id})
    return [{"who": who, "act": act, "stage": stage, "version": version,
             **({"said": comment} if comment else {})}
            for who, act, comment, stage, version in rows
            if comment or act.startswith("approve")]


class _Log:
    """The messages of one committed step, and what they leave in memory."""

    def __init__(self, c: Connection, plan: Any, team: TeamSpec, stage: StageSpec) -> None:
        self.c, self.plan, self.team, self.stage = c, plan, team, stage
        self.worker: Member = team.workers[plan.stage]
        self.lead, self.orch = team.lead.name, team.orchestrator.name
        self.source = f"step {plan.seq} ({plan.node}, {plan.stage})"
        self.mem = RunMemory(c, plan.run_id)
        self.rows: list[dict[str, Any]] = []
        self._authors: dict[int | None, tuple[str, str | None]] = {}

    def send(self, kind: str, sender: str, recipient: str, payload: Any, *,
             iteration: int, at: datetime | None = None, artifact: str | None = None,
             draft_id: int | None = None) -> None:
        self.rows.append({
            "run_id": self.plan.run_id, "step_id": self.plan.step_id, "kind": kind,
            "sender": sender, "recipient": recipient, "stage": self.plan.stage,
            "iteration": iteration, "payload": payload.model_dump(mode="json"),
            "artifact": artifact, "draft_id": draft_id, "at": at or utcnow()})

    def flush(self) -> None:
        """The step's messages in one statement, and its memory's changed namespaces."""
        INSERT_MSG.run_many(self.c, self.rows)
        self.rows.clear()
        self.mem.flush()

    def _stage_messages(self) -> list[Any]:
        return SEL_STAGE_MSGS.rows(self.c, {"b_run": self.plan.run_id,
                                            "b_stage": self.plan.stage})

    def _started(self) -> datetime | None:
        return SEL_STARTED.scalar(self.c, {"b_id": self.plan.step_id})

    # -- a worker's draft ---------------------------------------------------------------------

    def drafted(self, run: Any, draft_id: int | None, text: str) -> None:
        task, worker = self.plan.task, self.worker
        earlier = self._stage_messages()
        at = self._started()
        attempt = self.plan.iteration + 1
        if not any(k == "task" and s == self.orch for k, s, _, _ in earlier):
            goal = self.plan.input.get("goal") or ""
            self.send("task", self.orch, self.lead, TaskPayload(
                summary=f"Stage {self.plan.stage}: {goal}".strip(),
                instructions=f"Have the {worker.title.lower()} draft it and evaluate the "
                             "result before it goes to people."), iteration=0, at=at)
            self.send("task", self.lead, worker.name, TaskPayload(
                summary=self.team.assignments.get(self.plan.stage, f"Draft {self.plan.stage}"),
                instructions=f"Attempt {attempt}.", inputs=_inputs(task.context)),
                iteration=attempt, at=at)
        relayed = {f for k, s, p, _ in earlier if k == "feedback" and s == self.orch
                   for f in (p or {}).get("from_people", [])}
        new = [f for f in task.feedback if f not in relayed]
        if new:  # a person sent the stage back with comments: down the hierarchy
            most = self._max_attempts()
            self.send("feedback", self.orch, self.lead, FeedbackPayload(
                summary="People sent the stage back.", from_people=new, attempt=attempt,
                max_attempts=most), iteration=attempt, at=at)
            self.send("feedback", self.lead, worker.name, FeedbackPayload(
                summary="Apply what people asked for.",
                notes=[n.text for n in task.notes if n.priority != "info"],
                from_people=new, attempt=attempt, max_attempts=most), iteration=attempt, at=at)
        n = 1 + sum(1 for k, s, _, _ in earlier if k == "result" and s == worker.name)
        artifact = f"{worker.name} v{n}"
        version = SEL_VERSION.scalar(self.c, {"b_id": draft_id})
        self.send("result", worker.name, self.lead, ResultPayload(
            summary=f"{artifact} for the {self.plan.stage} stage (run version v{version}).",
            artifact=artifact, version=version, chars=len(text)),
            iteration=attempt, artifact=artifact, draft_id=draft_id)
        self.mem.append(agent_namespace(worker.name), "attempts",
                        {"artifact": artifact, "version": version, "chars": len(text)},
                        self.source)
        if "candidates" in task.context:
            self._scouted(task.context["candidates"], text, artifact)

    def _scouted(self, candidates: list[dict[str, Any]], text: str, artifact: str) -> None:
        """The scout's own memory: what it searched, and whom it passed over."""
        ns = agent_namespace(self.worker.name)
        handles = [str(c.get("handle")) for c in candidates if c.get("handle")]
        chosen = [h for h in handles if h.lower() in text.lower()]
        i = self.plan.input
        self.mem.append(ns, "search_history", {
            "artifact": artifact, "goal": i.get("goal"), "audience": i.get("audience"),
            "channels": i.get("channels"), "budget": i.get("budget"),
            "candidates": len(handles), "top": handles[:5]}, self.source)
        rejected = dict(self.mem.value(ns, "rejected") or {})
        rejected = {h: why for h, why in rejected.items() if h not in chosen}
        rejected.update({h: f"ranked but not chosen in {artifact}" for h in handles
                         if h not in chosen and h not in rejected})
        self.mem.merge(ns, {"rejected": rejected}, self.source)

    # -- the lead's evaluation and what follows it --------------------------------------------

    def evaluated(self, run: Any, outcome: Any, notes: list[str], decision: str) -> None:
        from engine.loop.decide import gate, review_verdict, thresholds_for

        stage = self.stage
        scores = {s.name: round(s.value, 4) for s in outcome.scores}
        blocking = [f.category for f in outcome.flags if f.blocking]
        said = review_verdict(outcome.verdicts)
        passed = gate(scores, blocking, thresholds_for(stage, self.plan.params),
                      [said] if stage.require_pass_verdict and said else None)
        author, artifact = self._author(run.current_draft_id)
        verdict = _lead_verdict(run, passed.passed)
        why = passed.why if verdict == "PASS" or not decision else decision
        self.send("evaluation", self.lead, author, EvaluationPayload(
            verdict=verdict, evaluator_verdict=said, scores=scores, why=why,
            notes=notes[:8], flags=[f"{f.category}: {f.text}" for f in outcome.flags][:8],
            artifact=artifact), iteration=self.plan.iteration, artifact=artifact,
            draft_id=run.current_draft_id)
        self.mem.append(agent_namespace(self.lead), "evaluations",
                        {"artifact": artifact, "verdict": verdict, "why": why}, self.source)
        if author == self.worker.name:
            self.mem.append(agent_namespace(author), "lead_said",
                            {"artifact": artifact, "verdict": verdict, "notes": notes[:5]},
                            f"the marketing lead's evaluation, {self.source}")
        self.decided(run, notes, decision)

    def _max_attempts(self) -> int:
        from engine.loop.decide import max_iterations_for

        return max_iterations_for(self.stage, self.plan.params)

    def decided(self, run: Any, notes: list[str], decision: str) -> None:
        """The lead's decision: the work goes back to the worker, or up to people."""
        _, artifact = self._author(run.current_draft_id)
        if run.status == "running" and run.next_node == "draft":
            self.send("feedback", self.lead, self.worker.name, FeedbackPayload(
                summary=decision or "Revise.", notes=notes[:8], attempt=run.iteration + 1,
                max_attempts=self._max_attempts()),
                iteration=run.iteration + 1, artifact=artifact)
        elif run.status == "awaiting_review":
            self.send("result", self.lead, self.orch, ResultPayload(
                summary=decision or "Waiting for review.", artifact=artifact),
                iteration=self.plan.iteration, artifact=artifact)
            self.send("result", self.orch, PERSON, ResultPayload(
                summary=f"The {self.plan.stage} stage is ready for your review "
                        f"({artifact}).", artifact=artifact),
                iteration=self.plan.iteration, artifact=artifact)
        if decision:
            self.mem.append(SHARED, "decisions", f"{self.plan.stage}, {artifact}: {decision}",
                            f"the marketing lead, {self.source}")

    def _author(self, draft_id: int | None) -> tuple[str, str | None]:
        """Who wrote the version under evaluation (a worker, or people), and its artifact."""
        if draft_id not in self._authors:
            self._authors[draft_id] = self._find_author(draft_id)
        return self._authors[draft_id]

    def _find_author(self, draft_id: int | None) -> tuple[str, str | None]:
        rows = SEL_RESULT_OF.rows(self.c, {"b_run": self.plan.run_id, "b_id": draft_id})
        if rows:
            return str(rows[0][0]), rows[0][1]
        version = SEL_VERSION.scalar(self.c, {"b_id": draft_id})
        return PERSON, f"{PERSON} v{version}" if version else None


def _lead_verdict(run: Any, gate_passed: bool) -> str:
    """The lead's verdict is its decision: PASS only when the work goes up to people as
    passing (thresholds met; or a person's edit or halt with the gate passed), REVISE when it
    goes back to the worker or up to people unfinished (a stall, the iteration limit)."""
    if run.status == "running" or run.halt_reason in ("stalled", "max_iterations"):
        return "REVISE"
    if run.halt_reason == "thresholds_met":
        return "PASS"
    return "PASS" if gate_passed else "REVISE"


def _inputs(context: dict[str, Any]) -> list[str]:
    out = [INPUT_NAMES.get(k, k) for k, v in context.items()
           if v and k not in ("directory", CONTEXT_KEY)]
    mem = context.get(CONTEXT_KEY) or {}
    out += [f"memory: {n}" for n in mem.get("namespaces", [])]
    return out


__all__ = ["TeamHooks"]
