"""The offline outreach drafter's answers to comments on the messages' form
(engine/pipelines/campaign/message_form.py reads them): a creator moved to another channel, no
exclamation marks, a length cap per message; and, for what a template cannot do (a tone,
another language), the reason the "Open points" line gives."""

from __future__ import annotations

import re
from typing import Any

from engine.checks.terms import data as coverage_data
from engine.pipelines.campaign.channels import LABELS, SPECS
from engine.pipelines.campaign.message_form import (
    ChannelAsk,
    LengthCap,
    channel_ask,
    exclamations,
    language,
    length_cap,
    measure,
    tone,
)
from engine.pipelines.campaign.requests import other_form


def channel_moves(feedback: list[str], shortlist: list[dict[str, Any]]
                  ) -> tuple[list[ChannelAsk], dict[str, str]]:
    """The channel moves a person asked for, and those not applied with why (a channel that
    reaches colleagues, not creators)."""
    creators = [(e["handle"], str(e.get("name") or "")) for e in shortlist]
    moves: list[ChannelAsk] = []
    refused: dict[str, str] = {}
    for f in feedback:
        ask = None if other_form(f) else channel_ask(f, creators)
        if ask is None:
            continue
        if coverage_data()["channel_audience"].get(ask.to) == "internal":
            refused[f] = (f"{LABELS.get(ask.to, ask.to)} reaches people inside the company, "
                          "not creators; name a channel that reaches them")
            continue
        moves.append(ask)
    return moves, refused


def route(handle: str, channels: list[str], moves: list[ChannelAsk]) -> list[str]:
    """The creator's channels after the moves that name them, the latest comment last: the
    channel a move replaces (their first when it names none) becomes the one it asks for."""
    out = list(channels)
    for ask in moves:
        if handle not in ask.handles:
            continue
        if ask.also:
            out = list(dict.fromkeys([*out, ask.to]))
            continue
        away = ask.away if ask.away in out else (out[0] if out else None)
        out = [ask.to if c == away else c for c in out] if away else [ask.to]
        out = list(dict.fromkeys(out))
    return out


def no_exclamations(text: str) -> str:
    """"Hi Maya! We'd love that!" -> "Hi Maya, we'd love that." (a greeting keeps a comma)."""
    text = re.sub(r"^(\s*(?:Hi|Hello|Hey|Dear)\s+[^!\n]{1,40}?)!+\s+(\S)",
                  lambda m: f"{m.group(1)}, {m.group(2).lower() if m.group(2) != 'I' else 'I'}",
                  text)
    return re.sub(r"!+", ".", text).replace("?.", "?").replace("..", ".")


def wants_no_exclamations(feedback: list[str]) -> bool:
    return any(exclamations(f) for f in feedback)


def caps(feedback: list[str]) -> list[tuple[str, LengthCap]]:
    """Each length cap a comment asks for, with the comment."""
    return [(f, cap) for f in feedback if (cap := length_cap(f))]


def cap_for(channel: str, wanted: list[tuple[str, LengthCap]]) -> list[tuple[str, LengthCap]]:
    """The caps that bind a message on `channel`, each within the channel's own limit."""
    limit = SPECS[channel].max_length if channel in SPECS else None
    out = []
    for f, cap in wanted:
        if cap.channel not in (None, channel):
            continue
        if cap.unit == "characters" and limit is not None and cap.limit > limit:
            cap = cap._replace(limit=limit)
        out.append((f, cap))
    return out


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")


def fit(body: str, cap: LengthCap, keep: list[str],
        disclosure: tuple[str, str] | None = None) -> tuple[str, bool]:
    """The body within the cap by dropping whole sentences, longest first, but never the
    greeting or one that carries a phrase of `keep` (the fee, the disclosure, what a person
    asked to say, the signature); then, if still over, with the sentence that carries the
    disclosure's tag in the short form `disclosure` gives: (tag, sentence). (text, whether
    it fits): as short as it gets when it does not."""
    paragraphs = [_SENTENCE.split(p.strip()) for p in body.split("\n\n") if p.strip()]

    def text() -> str:
        return "\n\n".join(" ".join(p) for p in paragraphs if p)

    def needed(k: int, j: int) -> bool:
        s = paragraphs[k][j]
        return (k, j) == (0, 0) or any(x and x.lower() in s.lower() for x in keep)

    while measure(text(), cap.unit) > cap.limit:
        optional = [(len(paragraphs[k][j]), k, j) for k in range(len(paragraphs))
                    for j in range(len(paragraphs[k])) if not needed(k, j)]
        if not optional:
            break
        _, k, j = max(optional)
        del paragraphs[k][j]
    if measure(text(), cap.unit) > cap.limit and disclosure:
        tag, short = disclosure
        paragraphs = [[short if tag.lower() in s.lower() else s for s in p] for p in paragraphs]
    return text(), measure(text(), cap.unit) <= cap.limit


def why_not(comment: str) -> str:
    """Why the offline drafter leaves a comment to a person, as precisely as it can say (each
    reason a comment gives it, in one line)."""
    reasons = []
    if lang := language(comment):
        reasons.append(f"the offline drafter writes in English only: have the messages "
                       f"translated into {lang} and paste them here; the check cannot verify "
                       "a translation")
    elif other_form(comment):
        reasons.append("the offline drafter writes text messages only; make that form outside "
                       "Draftroom")
    if tone(comment):
        reasons.append("the offline drafter writes in the brand's own voice from fixed "
                       "templates and cannot change how the messages sound: edit them, or ask "
                       "for something concrete, such as a sign-off, no exclamation marks or a "
                       "length per message")
    return "; ".join(reasons) or ("the offline drafter has no rule for this request; edit the "
                                  "messages or say it in other words")


__all__ = ["caps", "cap_for", "channel_moves", "fit", "no_exclamations", "route",
           "wants_no_exclamations", "why_not"]
