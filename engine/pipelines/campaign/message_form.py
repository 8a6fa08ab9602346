"""What a reviewer's comment asks of the outreach messages' form, read the same way by the
offline drafter (which applies what a template can) and the feedback-coverage check (which
reads every backend's revision against it):

- a channel swap: "send Maya's by email instead of WhatsApp", "reach both creators by email
  instead", "switch the second creator from SMS to WhatsApp";
- exclamation marks: "drop the exclamation marks", "fewer exclamation points";
- a length cap per message: "keep each DM under 300 characters", "max 40 words per message",
  "keep the WhatsApp ones to 200 characters max", "fit each text in one SMS";
- a tone ("warmer", "less salesy", "more formal") or another language ("in German"): read so
  the drafter can say precisely why it leaves them to a person.
Pure: the comment and the creators (handle and name, in the shortlist's order) are arguments."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from engine.pipelines.campaign.requests import LANGUAGES, Creator, named_creators, sentences_of

# A channel as people say it ("DM" is Instagram's: the campaigns' only direct-message channel).
_CHANNEL_WORDS = {
    "email": r"e-?mails?|mail",
    "sms": r"sms(?:es)?|texts?(?: messages?)?|text messages?",
    "whatsapp": r"whats\s?app",
    "instagram_dm": r"instagram(?: dms?| direct messages?)?|insta|ig|dms?",
    "teams": r"(?:ms |microsoft )?teams",
}
_CHANNEL = re.compile("|".join(rf"(?P<{k}>\b(?:{v})\b)" for k, v in _CHANNEL_WORDS.items()),
                      re.I)
# What comes before the channel a comment moves away from ("instead of WhatsApp", "not by SMS",
# "from SMS to ...") and before the one it moves to ("by email", "switch ... to email").
_FROM = re.compile(r"\b(?:instead of|rather than|not|from|off|no more|no longer)\s+(?:by\s+|on\s+|"
                   r"via\s+|over\s+|through\s+|a\s+|the\s+)?$"
                   # "don't use WhatsApp for Amir": a channel to drop, not one to move to
                   r"|\b(?:don'?t|do not|never|stop|avoid|no)\s+(?:[\w'-]+\s+){0,3}$", re.I)
# "message them on WhatsApp too": a channel added beside theirs, none replaced.
_ALSO = re.compile(r"\b(?:also|too|as well|in addition|additionally|on top)\b", re.I)
_SWAP = re.compile(r"\binstead\b|\brather than\b|\b(?:switch|move|swap|change|use|using|send|"
                   r"reach|contact|message|write|go)\b[^.;!?\n]*\b(?:by|via|over|on|through|to|"
                   r"in)\s+$", re.I)
_USE = re.compile(r"\b(?:use|using|prefer|try)\s+(?:an?\s+|the\s+)?$", re.I)
_INSTEAD = re.compile(r"\binstead\b|\brather than\b|\bswitch\b|\bswap\b", re.I)
_VERB_AT = re.compile(r"(?:^|[.;!?,]\s*|\b(?:just|please|only|then|and)\s+)$", re.I)
_MENTION = re.compile(r"^\s*(?:please\s+)?(?:mention|say|add|include|tell|note|highlight)\b", re.I)

_EXCLAIM = re.compile(r"exclamation|!\s*(?:marks?|points?)|\bshout(?:y|ing)\b|\bbangs\b", re.I)
_MORE_MARKS = re.compile(r"\b(?:add|more|put|include|end with|use)\b(?:\s+[\w'-]+){0,3}\s+"
                         r"(?:exclamation|!)", re.I)
_FEWER = re.compile(r"\b(?:fewer|less|too many|tone down|cut down|not so many)\b", re.I)
_UNIT = r"(?P<unit>characters?|chars?|words?)"
_CAP = re.compile(
    rf"\b(?:under|below|within|at most|max(?:imum)?(?:\s+of)?|no (?:more|longer) than|up to|"
    rf"less than|fewer than|to|cap(?:ped)? at|limit(?:ed)? to)\s+(?P<n>\d[\d,]*)\s*{_UNIT}"
    rf"|\b(?P<n2>\d[\d,]*)\s*(?P<unit2>characters?|chars?|words?)\s*(?:max(?:imum)?|or "
    rf"(?:less|fewer)|tops|at most|limit)\b", re.I)
_PART = re.compile(r"\b(?:subject|title|headline|greeting|opening|first line|sign-?off|"
                   r"signature|hook|call to action|cta)\b", re.I)
_ONE_SMS = re.compile(r"\b(?:one|a single|1)\s+(?:sms|text)(?:\s+(?:message|segment))?\b", re.I)
SMS_SEGMENT = 160
"""Characters in one SMS segment."""
_TONE = re.compile(r"\b(?:warm(?:er|th)?|friendl(?:y|ier)|casual|relaxed|informal|formal|"
                   r"professional|playful|fun(?:nier)?|salesy|sales-y|pushy|stiff|corporate|"
                   r"cold|tone|voice|chatt(?:y|ier)|upbeat|enthusiastic|polite|cheesy|hype|"
                   r"hypey|robotic|human)\b", re.I)
_LANGUAGE = re.compile(rf"\b(?:in|into)\s+(?P<lang>{LANGUAGES})\b"
                       rf"|\btranslat\w*\b[^.;!?\n]*?\b(?P<lang2>{LANGUAGES})\b", re.I)


class ChannelAsk(NamedTuple):
    handles: list[str]
    to: str
    """The channel to reach them on ("email")."""
    away: str | None
    """The channel it replaces ("whatsapp"; None: their first one)."""
    also: bool = False
    """Added beside their channels ("on WhatsApp too"), replacing none."""


class LengthCap(NamedTuple):
    limit: int
    unit: Literal["characters", "words"]
    channel: str | None
    """The channel whose messages it caps (None: every message)."""


def _mentions(comment: str) -> list[tuple[str, int, int]]:
    """(channel, start, end) of each channel the comment names."""
    return [(m.lastgroup or "", m.start(), m.end()) for m in _CHANNEL.finditer(comment)]


def channel_ask(comment: str, creators: list[Creator]) -> ChannelAsk | None:
    """The channel a comment moves creators to, and from (None: no such move, or it is only
    something to say: "mention that we're on WhatsApp"). Read in the sentence that asks it:
    "Raise Lior's fee. Move Maya to Instagram DM instead of SMS." moves Maya alone."""
    for sentence in sentences_of(comment):
        if ask := _channel_ask_in(sentence, creators):
            if not named_creators(sentence, creators) and (named := named_creators(comment,
                                                                                  creators)):
                return ask._replace(handles=named)  # "Lior's fee is fine. Email her instead."
            return ask
    return None


def _channel_ask_in(comment: str, creators: list[Creator]) -> ChannelAsk | None:
    if _MENTION.match(comment):
        return None
    found = _mentions(comment)
    away = next((c for c, a, _ in found if _FROM.search(comment[:a])), None)
    moves = bool(away) or bool(_INSTEAD.search(comment))
    to = next((c for c, a, b in found if c != away and not _FROM.search(comment[:a]) and (
        _SWAP.search(comment[:a]) or _USE.search(comment[:a])
        or re.match(r"\s+(?:instead|rather)\b", comment[b:])
        # the channel as the verb: "email them instead", "just WhatsApp Amir"
        or (moves and re.match(r"\s+(?:him|her|them|each|both|all|every|the|@)", comment[b:])
            and _VERB_AT.search(comment[:a])))), None)
    if to is None:
        return None
    handles = named_creators(comment, creators) or [h for h, _ in creators]
    return ChannelAsk(handles, to, away, also=away is None and bool(_ALSO.search(comment))
                      and not _INSTEAD.search(comment))


def exclamations(comment: str) -> Literal["none", "fewer"] | None:
    """What a comment wants of exclamation marks: none at all, fewer, or nothing said (also
    for "add an exclamation mark to the greeting": more is no rule of the drafter's)."""
    if not _EXCLAIM.search(comment) or _MORE_MARKS.search(comment):
        return None
    return "fewer" if _FEWER.search(comment) else "none"


def length_cap(comment: str) -> LengthCap | None:
    """The longest a message may be ("under 300 characters", "max 40 words", "one SMS")."""
    m = _CAP.search(comment)
    if _PART.search(comment):  # "keep the subject line under 50 characters": not the message
        return None
    scope = [c for c, _, _ in _mentions(comment)]
    channel = scope[0] if len(set(scope)) == 1 else None
    if m:
        digits = m.group("n") or m.group("n2")
        unit = (m.group("unit") or m.group("unit2")).lower()
        limit = int(digits.replace(",", ""))
        if limit <= 0:
            return None
        return LengthCap(limit, "words" if unit.startswith("word") else "characters", channel)
    if _ONE_SMS.search(comment) and re.search(r"\b(?:fit|keep|one|single)\b", comment, re.I):
        return LengthCap(SMS_SEGMENT, "characters", channel or "sms")
    return None


def tone(comment: str) -> bool:
    """The comment is about how the messages sound ("warmer", "less salesy")."""
    return bool(_TONE.search(comment))


def language(comment: str) -> str | None:
    """The language a comment wants the messages in ("German"), if it asks for one."""
    m = _LANGUAGE.search(comment)
    return (m.group("lang") or m.group("lang2")).capitalize() if m else None


def measure(text: str, unit: str) -> int:
    """A message's length in the cap's unit."""
    return len(text.split()) if unit == "words" else len(text)


__all__ = ["SMS_SEGMENT", "ChannelAsk", "LengthCap", "channel_ask", "exclamations",
           "language", "length_cap", "measure", "tone"]
