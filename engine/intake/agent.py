"""The onboarding agent's turn: what it says next, which fields it asks for, and, once the
person has confirmed a complete card, the completion signal. It never asks for a field the
card holds; it asks for what is missing one at a time, two when one of them is an amount, a
channel or a date (an answer to those cannot be mistaken for the other)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from engine.intake.card import CompletionSignal, card_lines, missing_fields
from engine.intake.fields import spec
from engine.intake.normalise import shown

GREETING = ("Hi! I'm the onboarding agent. Tell me about the business and what the campaign "
            "should achieve, in any order and your own words; I'll fill in the card as we go.")


class AgentTurn(BaseModel):
    reply: str
    asks: list[str] = Field(default_factory=list)
    """The fields this turn asks for."""
    awaiting_confirmation: bool = False
    """The turn shows the complete card and asks the person to confirm it."""
    signal: CompletionSignal | None = None
    """Set only when the person confirmed a complete card: the orchestrator's cue to save."""


def fields_to_ask(missing: list[str]) -> list[str]:
    if not missing:
        return []
    first = missing[0]
    if len(missing) > 1 and (spec(first).self_evident or spec(missing[1]).self_evident):
        return missing[:2]
    return [first]


def _ack(new: dict[str, Any]) -> str:
    if not new:
        return ""
    parts = [f"{spec(f).label}: {shown(f, v)}" for f, v in new.items()]
    return "Noted (" + "; ".join(parts) + "). "


def _questions(asks: list[str]) -> str:
    return " ".join(spec(f).question for f in asks)


def _card_text(values: dict[str, Any]) -> str:
    return "\n".join(f"- {label}: {value}" for label, value in card_lines(values) if value)


def next_turn(values: dict[str, Any], *, new: dict[str, Any], problems: list[tuple[str, str]],
              brand_picked: bool, confirmed_at: int | None, brand_name: str = "",
              deferred: frozenset[str] = frozenset()) -> AgentTurn:
    """`new`: values recorded from the last message; `problems`: (field, question) pairs for
    what could not be read; `confirmed_at`: the index of the person's confirming message;
    `deferred`: fields asked for twice whose answers did not fill them. Those are asked again
    last: asking the same question until it is answered in the shape expected left every other
    answer unread (a person who skipped the name was asked for it eight times)."""
    missing = missing_fields(values, brand_picked=brand_picked)
    missing = ([f for f in missing if f not in deferred]
               + [f for f in missing if f in deferred])
    if problems:
        asks = list(dict.fromkeys(f for f, _ in problems if f in missing))[:2]
        reply = _ack(new) + " ".join(dict.fromkeys(q for _, q in problems[:2]))
        if not asks and missing:  # nothing to ask again: go on with what is missing
            asks = fields_to_ask(missing)
            reply += " " + _questions(asks)
        return AgentTurn(reply=reply, asks=asks)
    if missing:
        asks = fields_to_ask(missing)
        lead = (f"We'll plan a campaign for {brand_name}. " if brand_picked and brand_name
                and not new else "")
        return AgentTurn(reply=_ack(new) + lead + _questions(asks), asks=asks)
    if confirmed_at is not None:
        signal = CompletionSignal(card=values, message_index=confirmed_at)
        return AgentTurn(reply="Thanks for confirming. I'm saving the business card and "
                         "starting the campaign at its first stage, the brief.", signal=signal)
    reply = (_ack(new) + "Here is the card:\n\n" + _card_text(values)
             + "\n\nIs all of this right? Say yes to start the campaign, or tell me what to "
             "change.")
    return AgentTurn(reply=reply, awaiting_confirmation=True)
