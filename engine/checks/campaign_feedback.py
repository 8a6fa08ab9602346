"""Feedback coverage for the campaign outreach: the comments whose answer can be read off the
messages themselves are verified there, for every backend, instead of by "the changed lines
hold the comment's numbers and names" (which a fee put on the wrong creator, or named once
in one message, would pass):

- a fee comment ("Offer the first creator $650 instead") is answered when the message(s) to
  the creator(s) it names offer that amount (or the old fee moved by it);
- a sign-off comment ("Sign them off from Noa, our events manager") is answered when every
  message carries the name.
Other comments, and texts without creator messages, are left to the general reading
(feedback_coverage.answered). Pure: the comment and the two versions are arguments."""

from __future__ import annotations

import re

from engine.checks.terms import numbers, sections
from engine.pipelines.campaign.requests import Creator, fee_ask, new_fee, sign_off

_MONEY = re.compile(r"[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?k?|\d[\d,]*\s?(?:usd|dollars|eur)\b",
                    re.I)
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


def _fees(body: str) -> list[float]:
    return [float(n) for a in _MONEY.findall(body) for n in numbers(a)]


def campaign_answered(comment: str, before: str, after: str) -> bool | None:
    """Whether the outreach `after` answers a fee or sign-off `comment` made about `before`
    (None: not such a comment, or no creator messages to read it in)."""
    now = _messages(after)
    if not now:
        return None
    ask = fee_ask(comment, creators_in(after))
    if ask:
        was = _messages(before)
        for handle in ask.handles:
            old = _fees(was.get(handle.lower(), ("", ""))[1])
            want = new_fee(ask, max(old) if old else 0.0)
            if float(want) not in _fees(now[handle.lower()][1]):
                return False
        return True
    signer = sign_off(comment)
    if signer:
        return all(signer.name.lower() in body.lower() for _, body in now.values())
    return None


__all__ = ["campaign_answered", "creators_in"]
