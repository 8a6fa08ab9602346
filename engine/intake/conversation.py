"""One turn of the intake, pure: a person's message and what the extractor read from it become
checked extraction records and the agent's next turn. What needs the database (the brands)
comes in as a lookup, so this runs the same in tests, the CLI and the page."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.intake.agent import AgentTurn, next_turn
from engine.intake.card import ExtractionRecord, IntakeMessage, current_values
from engine.intake.fields import BRAND_FIELDS
from engine.intake.normalise import Unclear, read_value, shown
from engine.intake.schema import ExtractionOut, IntakeTask
from engine.pipelines.campaign.brands import BrandOut

MAX_MESSAGE_CHARS = 4000
_TAG = re.compile(r"</?[a-z][a-z0-9]*\b[^>]*>", re.I)


@dataclass
class Conversation:
    messages: list[IntakeMessage] = field(default_factory=list)
    records: list[ExtractionRecord] = field(default_factory=list)
    brand: BrandOut | None = None
    """The existing brand picked for this campaign (then only campaign fields are asked)."""

    @property
    def values(self) -> dict[str, Any]:
        return current_values(self.records)

    @property
    def inferred(self) -> list[str]:
        """Fields whose latest value was inferred rather than said for them."""
        latest = {r.field: r.source for r in self.records}
        return [f for f, src in latest.items() if src == "inference"]

    @property
    def last_agent(self) -> IntakeMessage | None:
        return next((m for m in reversed(self.messages) if m.role == "agent"), None)

    def task(self, text: str) -> IntakeTask:
        last = self.last_agent
        return IntakeTask(
            message=text, asked=list(last.asks) if last else [], known=self.values,
            inferred=self.inferred,
            awaiting_confirmation=bool(last and last.awaiting_confirmation),
            brand_picked=self.brand is not None,
            recent=[f"{m.role}: {m.text}" for m in self.messages[-4:]])


@dataclass(frozen=True)
class BrandLookup:
    by_id: Callable[[int], BrandOut | None]
    by_name: Callable[[str], BrandOut | None]
    listing: Callable[[], str]
    """"1 Alma Cafe, 2 Stride Lab, ..." for a question back."""


def looks_like_page(text: str) -> bool:
    """A pasted web page (markup), not a person's words."""
    return len(_TAG.findall(text)) >= 3 or bool(re.search(r"<!doctype|<html|<body|<script",
                                                          text, re.I))


def screen(text: str) -> str | None:
    """The question to ask back for a message no extractor should read, else None."""
    if looks_like_page(text):
        return ("That looks like the HTML of a web page. I don't read business details out of "
                "page code, because it carries menus, scripts and other people's words. Tell me "
                "about the business in a sentence or two: its name, what it sells, and where.")
    if len(text) > MAX_MESSAGE_CHARS:
        return (f"That message is long ({len(text):,} characters). Tell me the key points in a "
                "few sentences instead (under 4,000 characters).")
    return None


def _read(extraction: ExtractionOut, conv: Conversation, brands: BrandLookup
          ) -> tuple[dict[str, tuple[Any, str]], list[tuple[str, str]]]:
    """Each field's value read and checked; (field, question) for what cannot be stored."""
    by_field: dict[str, list[tuple[Any, str]]] = {}
    problems: list[tuple[str, str]] = []
    kept_profile = False
    for v in extraction.values:
        if conv.brand is not None and v.field in BRAND_FIELDS:
            kept_profile = True  # the picked brand's profile holds these
            continue
        try:
            value = read_value(v.field, v.value)
        except Unclear as exc:
            problems.append((v.field, exc.question))
            continue
        by_field.setdefault(v.field, []).append((value, v.source))
    accepted: dict[str, tuple[Any, str]] = {}
    for f, vals in by_field.items():
        distinct = list({repr(x): x for x, _ in vals}.values())
        if len(distinct) > 1:
            said = " and ".join(shown(f, x) for x in distinct[:3])
            problems.append((f, f"You gave two values for the {f.replace('_', ' ')} ({said}): "
                             "which one should I use?"))
            continue
        accepted[f] = vals[0]
    if kept_profile:
        problems.append(("brand", f"I kept {conv.brand.name}'s saved profile as it is "  # type: ignore[union-attr]
                         "(edit it on the Brands page); this chat collects the campaign."))
    name = accepted.get("business_name")
    if name:
        clash = brands.by_name(str(name[0]))
        if clash is not None:
            del accepted["business_name"]
            problems.append(("business_name", f"There is already a brand called {clash.name} "
                             f"(brand {clash.id}). Say \"use brand {clash.id}\" to plan a "
                             "campaign for it, or give this business another name."))
    return accepted, problems


def _pick_brand(ref: str, brands: BrandLookup) -> tuple[BrandOut | None, str | None]:
    brand = brands.by_id(int(ref)) if ref.isdigit() else brands.by_name(ref)
    if brand is None:
        return None, (f"There is no brand {ref!r}: pick one of {brands.listing()}, or tell me "
                      "about a new business." if not ref.isdigit() else
                      f"There is no brand with id {ref}. The brands are {brands.listing()}; "
                      "say \"use brand N\", or tell me about a new business.")
    return brand, None


def brand_records(brand: BrandOut, index: int, at: datetime) -> list[ExtractionRecord]:
    values = {"business_name": brand.name, "sells": brand.service_type or "",
              "audience": brand.audience, "voice": brand.voice, "products": brand.products,
              "banned_claims": brand.avoid_claims + brand.avoid_words,
              "region": brand.location}
    return [ExtractionRecord(field=f, value=v, message_index=index, source="brand_profile",
                             at=at) for f, v in values.items() if v not in ("", None)]


def _unanswered(messages: list[IntakeMessage], records: list[ExtractionRecord],
                index: int) -> frozenset[str]:
    """Fields asked for twice whose replies (the message after each ask; `index` is the
    reply being read now) did not fill them. Once is not enough: a person who tells more
    about the business first usually answers the question when it comes again."""
    filled = {(r.message_index, r.field) for r in records}
    misses = Counter(f for m in messages if m.role == "agent" and m.index + 1 <= index
                     for f in m.asks if (m.index + 1, f) not in filled)
    return frozenset(f for f, n in misses.items() if n >= 2)


def read_turn(conv: Conversation, text: str, extraction: ExtractionOut | None, *,
              brands: BrandLookup, at: datetime) -> tuple[list[ExtractionRecord], AgentTurn,
                                                          BrandOut | None]:
    """The records to add, the agent's turn, and the brand picked in this message (if any).
    `extraction` is None when screen() refused the message."""
    index = len(conv.messages)
    if extraction is None:
        question = screen(text) or "Could you say that again in a sentence or two?"
        return [], AgentTurn(reply=question, asks=conv.last_agent.asks if conv.last_agent
                             else []), None
    problems: list[tuple[str, str]] = []
    picked = None
    records: list[ExtractionRecord] = []
    if extraction.brand:
        picked, why = _pick_brand(extraction.brand, brands)
        if why:
            problems.append(("brand", why))
        else:
            records += brand_records(picked, index, at)  # type: ignore[arg-type]
    view = Conversation(conv.messages, conv.records, picked or conv.brand)
    accepted, more = _read(extraction, view, brands)
    problems += more
    records += [ExtractionRecord(field=f, value=v, message_index=index, source=src, at=at)
                for f, (v, src) in accepted.items()]
    values = current_values(conv.records + records)
    confirmed = None
    asked_to_confirm = view.task(text).awaiting_confirmation
    if extraction.confirms and not accepted and not problems and asked_to_confirm:
        confirmed = index
        records += [ExtractionRecord(field=f, value=v, message_index=index,
                                     source="user_confirmation", at=at) for f, v in values.items()]
    turn = next_turn(values, new={f: v for f, (v, _) in accepted.items()}, problems=problems,
                     brand_picked=view.brand is not None, confirmed_at=confirmed,
                     brand_name=view.brand.name if view.brand else "",
                     deferred=_unanswered(conv.messages, conv.records + records, index))
    return records, turn, picked
