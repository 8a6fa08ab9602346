"""What the chat page and the CLI call: start an intake, send it a message, read it back, list
the open ones. The orchestrator's rule is here: the brand is saved and the campaign started
only when the agent's turn carries the completion signal, and never before."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session, col, select

from db.intake_tables import Intake
from db.session import session_scope
from engine import service as run_service
from engine.errors import InvalidInput, InvalidState, ServiceError, StaleRun
from engine.intake import store
from engine.intake.agent import GREETING, AgentTurn, fields_to_ask
from engine.intake.card import (
    ConfirmedCard,
    ExtractionRecord,
    IntakeMessage,
    card_lines,
    current_values,
    missing_fields,
    to_confirmed,
)
from engine.intake.conversation import BrandLookup, brand_records, read_turn, screen
from engine.intake.extractor import run_extractor
from engine.intake.fields import spec
from engine.llm.base import LLMBackend
from engine.pipelines.campaign.brands import BrandIn, BrandOut, create_brand, list_brands
from engine.pipelines.campaign.market import region_of_place
from engine.pipelines.campaign.models import CampaignInput
from engine.redact import redact_text
from engine.text import clean_text
from engine.validation import parse_input

DEFAULT_CREATORS = 3


class IntakeView(BaseModel):
    id: int
    status: str
    brand_id: int | None
    run_id: int | None
    label: str
    created_by: str
    updated_at: datetime
    messages: list[IntakeMessage]
    records: list[ExtractionRecord]
    values: dict[str, Any]
    missing: list[str]
    card: list[tuple[str, str]]
    """(label, value) per field, "" while missing."""
    brand_picked: bool

    @property
    def questions(self) -> list[IntakeMessage]:
        """Every agent message that asked for fields."""
        return [m for m in self.messages if m.role == "agent" and m.asks]


class IntakeSummary(BaseModel):
    id: int
    label: str
    created_by: str
    updated_at: datetime
    missing: int


def _brands() -> BrandLookup:
    brands = list_brands()

    def by_id(i: int) -> BrandOut | None:
        return next((b for b in brands if b.id == i), None)

    def by_name(n: str) -> BrandOut | None:
        return next((b for b in brands if b.name.lower() == n.strip().lower()), None)

    return BrandLookup(by_id=by_id, by_name=by_name,
                       listing=lambda: ", ".join(f"{b.id} {b.name}" for b in brands[:12]))


def _view(row: Intake, conv: store.Conversation) -> IntakeView:
    values = conv.values
    # Picked at the start or in the chat (a card saved as a new brand is not a pick).
    picked = any(r.source == "brand_profile" for r in conv.records)
    return IntakeView(id=row.id, status=row.status, brand_id=row.brand_id, run_id=row.run_id,  # type: ignore[arg-type]
                      label=row.label, created_by=row.created_by, updated_at=row.updated_at,
                      messages=conv.messages, records=conv.records, values=values,
                      missing=missing_fields(values, brand_picked=picked),
                      card=card_lines(values), brand_picked=picked)


def get_intake(intake_id: int) -> IntakeView:
    with session_scope() as s:
        row, conv = store.load(s, intake_id)
        return _view(row, conv)


def start_intake(*, actor: str, brand_id: int | None = None) -> IntakeView:
    """A new chat, greeting first; with `brand_id` only the campaign's fields are asked."""
    who = run_service._actor(actor)
    brand = None
    if brand_id is not None:
        brand = _brands().by_id(brand_id)
        if brand is None:
            raise InvalidInput(f"There is no brand with id {brand_id}: pick one from the "
                               "Brands page, or start without one.",
                               {"brand_id": "no brand has this id"})
    now = datetime.now().astimezone()
    asks = fields_to_ask(missing_fields(current_values(
        brand_records(brand, 0, now) if brand else []), brand_picked=brand is not None))
    greeting = (f"Hi! Let's plan a campaign for {brand.name}. " if brand else GREETING + " ")
    turn = AgentTurn(reply=greeting + " ".join(spec(f).question for f in asks), asks=asks)
    with session_scope() as s:
        row = Intake(created_by=who, brand_id=brand.id if brand else None,
                     label=brand.name if brand else "")
        s.add(row)
        s.flush()
        s.add(store.agent_row(row.id, 0, turn, now))  # type: ignore[arg-type]
        if brand:
            s.add_all(store.record_rows(row.id, brand_records(brand, 0, now)))  # type: ignore[arg-type]
        s.flush()
        row_id = row.id
    return get_intake(row_id)  # type: ignore[arg-type]


def send_message(*, intake_id: int, text: str, actor: str,
                 backend: LLMBackend | None = None) -> IntakeView:
    """Read the person's message, record what it holds, answer; on the completion signal save
    the brand and start the campaign. A failed model call stores nothing."""
    run_service._actor(actor)
    text = redact_text(clean_text(text or ""))
    if not text:
        raise InvalidInput("Write a message first.", {"text": "is required"})
    with session_scope() as s:
        row, conv = store.load(s, intake_id)
    if row.status != "open":
        raise InvalidState(f"This chat is finished: it started campaign run {row.run_id}.")
    extraction = None
    if screen(text) is None:
        if backend is None:
            from engine.llm.factory import backend_from_env
            backend = backend_from_env()
        extraction = run_extractor(conv.task(text), backend)
    now = datetime.now().astimezone()
    records, turn, picked = read_turn(conv, text, extraction, brands=_brands(), at=now)
    values = current_values(conv.records + records)
    updates: dict[str, Any] = {"label": str(values.get("business_name", row.label))[:200]}
    if picked:
        updates["brand_id"] = picked.id
    turn_at = {"index": len(conv.messages), "text": text, "records": records, "at": now}
    try:
        # One transaction: the brand, the campaign run and the confirming turn are committed
        # together or not at all (a crash between them used to leave a brand without its run,
        # or a started run while the chat still asked for confirmation).
        with session_scope() as s:
            fresh = s.get(Intake, intake_id)
            assert fresh is not None
            after: list[AgentTurn] = []
            if turn.signal is not None:
                after, done = _complete(s, fresh, values, actor=actor,
                                        brand=picked or conv.brand, at=now)
                updates.update(done)
            store.save_turn(s, fresh, **turn_at, turn=turn, updates=updates, after=after)
    except ServiceError as exc:
        if isinstance(exc, StaleRun) or turn.signal is None:
            raise
        # Refused (a name taken meanwhile, a budget out of range): everything above was
        # rolled back; the turn is kept with the refusal as the agent's question instead.
        refusal = AgentTurn(reply=f"I could not start the campaign: {exc} What should I "
                            "change?", awaiting_confirmation=False)
        with session_scope() as s:
            fresh = s.get(Intake, intake_id)
            assert fresh is not None
            store.save_turn(s, fresh, **turn_at, turn=refusal, updates=updates)
    return get_intake(intake_id)


def _campaign_input(values: dict[str, Any], brand_id: int, brand_name: str,
                    audience: str) -> dict[str, Any]:
    d = values["dates"]
    start, end = date.fromisoformat(d["start"]), date.fromisoformat(d["end"])
    # The campaign's drafters and checks read its months from the goal's words.
    goal = f"{values['goal']} ({start:%-d %B %Y} to {end:%-d %B %Y})"
    # The place the person named sets the campaign's market (disclosure words, how fees are
    # written); a place no region names leaves it to Settings (service.start_run).
    region = region_of_place(str(values.get("region") or ""))
    return {"brand_id": brand_id, "brand_name": brand_name, "goal": goal[:1000],
            **({"region": region} if region else {}),
            "audience": (audience or values.get("audience") or "")[:500],
            "budget": values["budget"], "channels": values["channels"],
            "num_creators": values.get("num_creators") or DEFAULT_CREATORS}


def _complete(s: Session, row: Intake, values: dict[str, Any], *, actor: str,
              brand: BrandOut | None, at: datetime) -> tuple[list[AgentTurn], dict[str, Any]]:
    """Act on the completion signal in the caller's transaction: save the brand (unless one
    was picked) and start the campaign. A refusal raises ServiceError (the caller rolls the
    whole turn back and asks instead)."""
    parse_input(CampaignInput, _campaign_input(values, 1, str(values["business_name"]),
                                               str(values.get("audience", ""))))
    if brand is None:
        brand = create_brand(data=BrandIn(
            name=values["business_name"], service_type=values["sells"],
            audience=values["audience"], voice=values["voice"],
            products=values["products"], avoid_claims=values["banned_claims"],
            location=values["region"]), actor=actor, session=s)
    run_id = run_service.start_run(kind="campaign", actor=actor, session=s, input=_campaign_input(
        values, brand.id, brand.name, brand.audience))
    card = to_confirmed(values, intake_id=row.id, brand_id=brand.id, at=at)  # type: ignore[arg-type]
    started = AgentTurn(reply=f"Campaign started: run {run_id}, at its first stage (the brief). "
                        "You'll review each stage's draft before it moves on.")
    return [started], {"status": "done", "run_id": run_id, "brand_id": brand.id,
                       "card": card.model_dump(mode="json")}


def list_open(limit: int = 20) -> list[IntakeSummary]:
    """Open chats, most recently active first (to resume one)."""
    with session_scope() as s:
        rows = s.exec(select(Intake).where(Intake.status == "open")
                      .order_by(col(Intake.updated_at).desc()).limit(limit)).all()
        out = []
        for r in rows:
            _, conv = store.load(s, r.id)  # type: ignore[arg-type]
            missing = missing_fields(conv.values, brand_picked=r.brand_id is not None)
            out.append(IntakeSummary(id=r.id, label=r.label or "New business",  # type: ignore[arg-type]
                                     created_by=r.created_by, updated_at=r.updated_at,
                                     missing=len(missing)))
        return out


def confirmed_card(run_id: int) -> ConfirmedCard | None:
    """The card a campaign run was started from (None: the run was started from a form)."""
    with session_scope() as s:
        row = s.exec(select(Intake).where(Intake.run_id == run_id)).first()
        return ConfirmedCard.model_validate(row.card) if row and row.card else None
