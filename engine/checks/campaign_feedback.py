"""Feedback coverage for the campaign outreach: the comments whose answer can be read off the
messages themselves are verified there, for every backend, instead of by "the changed lines
hold the comment's numbers and names" (which a fee put on the wrong creator, or named once
in one message, would pass):

- a fee ("Offer the first creator $650 instead"): the message(s) to the creator(s) it names
  offer that amount (or the old fee moved by it); one in pounds or euros, that amount in that
  currency (a US-dollar fee that moved instead may be a conversion: cannot verify);
- a sign-off ("Sign them off from Noa, our events manager"): every message carries the name;
- a channel move ("send Maya's by email instead of WhatsApp"): the creator has a message on the
  new channel and none on the old;
- exclamation marks ("drop the exclamation marks"): none left (or fewer, when it asks fewer);
- a length cap ("keep each DM under 300 characters"): every message it caps is within it, as
  the creator reads it (Markdown stripped);
- another language ("in German"): messages still in English are not addressed; translated ones
  cannot be verified from the text (a person who reads the language must);
- a tone ("warmer", "less salesy"): not addressed unless at least half the messages'
  sentences were rewritten, and then for a person to judge (cannot verify).
Other comments, and texts without creator messages, are left to the general reading
(feedback_coverage.answered). Pure: the comment and the two versions are arguments."""

from __future__ import annotations

import re
from typing import Literal

from engine.checks.terms import sections
from engine.pipelines.campaign.channels import strip_markdown
from engine.pipelines.campaign.message_form import (
    channel_ask,
    exclamations,
    language,
    length_cap,
    measure,
    tone,
)
from engine.pipelines.campaign.money import amounts
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.requests import Creator, fee_ask, new_fee, other_form, sign_off

_HEAD = re.compile(r"(@[\w.]*\w)\s*(?:[\u00b7|:\u2013-]\s*(.*))?$")


def creators_in(text: str) -> list[Creator]:
    """The (handle, name) of each creator the outreach writes to, in its order."""
    return [(h, name) for h, (name, _) in _messages(text).items()]


def _messages(text: str) -> dict[str, tuple[str, str]]:
    """Outreach: handle -> (creator's name, their messages), in the text's order."""
    out: dict[str, tuple[str, str]] = {}
    for s in sections(text):
        m = _HEAD.match(s.heading)
        if m:
            out[m.group(1).lower()] = ((m.group(2) or "").strip(), s.body)
    return out


def _fees(body: str, currency: str = "USD") -> list[float]:
    """The amounts in `currency` a message offers."""
    return [a.value for a in amounts(body) if a.currency == currency]


Verdict = Literal["answered", "not_addressed", "cannot_verify"]


def _channels(text: str) -> dict[str, set[str]]:
    """Outreach: handle -> the channels it writes to them on."""
    out: dict[str, set[str]] = {}
    for m in parse_outreach(text).messages:
        if m.body:
            out.setdefault(m.handle.lower(), set()).add(m.channel)
    return out


def _bodies(text: str) -> list[tuple[str, str]]:
    """(channel, body) of each message."""
    return [(m.channel, m.body) for m in parse_outreach(text).messages if m.body]


def _english(text: str) -> float:
    """The share of the text's words that are common English function words (a translation
    has next to none; English prose has a third or more)."""
    words = re.findall(r"[a-z']+", text.lower())
    return sum(w in _ENGLISH for w in words) / len(words) if words else 0.0


_ENGLISH = set("the and you your we our to for of a an is it with this would be in on that are "
               "if us can will just about".split())
ENGLISH_SHARE = 0.15
"""Messages with at least this share of English function words are still in English."""


def _fee_verdict(comment: str, before: str, after: str) -> Verdict | None:
    ask = fee_ask(comment, creators_in(after))
    if not ask:
        return None
    was, now = _messages(before), _messages(after)
    unsure = False
    for handle in ask.handles:
        body = now[handle.lower()][1]
        if ask.currency != "USD":
            # Said in pounds or euros: answered in that currency; a US-dollar fee that moved
            # may be a conversion, which the text cannot show right or wrong.
            if float(ask.amount) in _fees(body, ask.currency):
                continue
            if set(_fees(body)) != set(_fees(was.get(handle.lower(), ("", ""))[1])):
                unsure = True
                continue
            return "not_addressed"
        old = _fees(was.get(handle.lower(), ("", ""))[1])
        if float(new_fee(ask, max(old) if old else 0.0)) not in _fees(body):
            return "not_addressed"
    return "cannot_verify" if unsure else "answered"


def _form_verdict(comment: str, before: str, after: str) -> Verdict | None:
    """A channel move, exclamation marks, a length cap or another language, read off the
    messages."""
    move = channel_ask(comment, creators_in(after))
    if move and not other_form(comment):
        now, was = _channels(after), _channels(before)
        for h in move.handles:
            got, had = now.get(h.lower(), set()), was.get(h.lower(), set())
            # The channel it names is gone; naming none, one of theirs gave way to the new one.
            left = move.away in got if move.away else not move.also and bool(
                had - {move.to}) and had - {move.to} <= got
            if move.to not in got or left:
                return "not_addressed"
        return "answered"
    marks = exclamations(comment)
    if marks:
        left = sum(body.count("!") for _, body in _bodies(after))
        had = sum(body.count("!") for _, body in _bodies(before))
        ok = left == 0 if marks == "none" else left < had or left == 0
        return "answered" if ok else "not_addressed"
    cap = length_cap(comment)
    if cap:
        capped = [body for channel, body in _bodies(after) if cap.channel in (None, channel)]
        ok = bool(capped) and all(measure(strip_markdown(b), cap.unit) <= cap.limit
                                  for b in capped)
        return "answered" if ok else "not_addressed"
    if language(comment):
        if _english(" ".join(body for _, body in _bodies(after))) >= ENGLISH_SHARE:
            return "not_addressed"  # still English
        return "cannot_verify"  # translated: only a reader of the language can judge it
    if tone(comment) and not other_form(comment):
        # How it sounds is a person's to judge, once the messages were rewritten at all: a
        # changed closing line is no warmer voice.
        return "cannot_verify" if _rewritten(before, after) >= REWRITTEN else "not_addressed"
    return None


REWRITTEN = 0.5
"""The share of the messages' sentences a tone comment needs rewritten before a person is
asked to judge the new tone (less: not addressed)."""


def _rewritten(before: str, after: str) -> float:
    """The share of the messages' sentences in `after` that `before` does not have."""
    def sentences(text: str) -> list[str]:
        return [" ".join(x.lower().split()) for _, body in _bodies(text)
                for x in re.split(r"(?<=[.!?])\s+", body) if x.strip()]
    old, new = set(sentences(before)), sentences(after)
    return sum(x not in old for x in new) / len(new) if new else 0.0


def campaign_verdict(comment: str, before: str, after: str) -> Verdict | None:
    """Whether the outreach `after` answers a `comment` made about `before` that the messages
    themselves can show (a fee, a sign-off, a channel, exclamation marks, a length cap) or
    show cannot be judged from the text (a translation); None: no such comment, or no
    creator messages to read it in."""
    if not _messages(after):
        return None
    fee = _fee_verdict(comment, before, after)
    if fee:
        return fee
    signer = sign_off(comment)
    if signer:
        signed = all(signer.name.lower() in body.lower() for _, body in _messages(after).values())
        return "answered" if signed else "not_addressed"
    return _form_verdict(comment, before, after)


__all__ = ["ENGLISH_SHARE", "REWRITTEN", "Verdict", "campaign_verdict", "creators_in"]
