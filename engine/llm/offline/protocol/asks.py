"""What the notes and the human feedback on a protocol draft ask the offline Drafter
for, read from their words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.pipelines.base import DraftTask

if TYPE_CHECKING:
    pass

from engine.llm.offline.protocol.common import (  # package-internal helpers
    _QUOTED,
    _topic_in,
)


@dataclass
class _Asks:
    """What the notes and the feedback ask for, read from their words."""

    remove: list[str] = field(default_factory=list)
    rephrase: list[str] = field(default_factory=list)
    crisis: bool = False
    professional: bool = False
    safety_note: bool = False
    purpose: bool = False
    more_steps: bool = False
    extra_step: bool = False
    fewer_steps: bool = False
    step_limit: int | None = None
    """A person asked for at most this many steps ("cut it down to four steps")."""
    fewer_asked: bool = False
    """A person asked for fewer steps: cut to a short list, not only down to the maximum."""
    imperative: bool = False
    shorten_steps: bool = False
    shorten: bool = False
    lengthen: bool = False
    simplify: bool = False
    warm: bool = False
    warmer: bool = False
    """A person asked for a warmer tone: warm it visibly even if the critic is content."""
    second_person: bool = False
    judgemental: bool = False
    reflection: bool = False
    extra_question: bool = False
    title: str | None = None
    add_topics: list[str] = field(default_factory=list)
    remove_topics: list[str] = field(default_factory=list)


def _has(text: str, pattern: str) -> bool:
    return re.search(pattern, text, re.I) is not None


_ADD_TOPIC = re.compile(
    r"\b(?:add|include|put in|mention)\s+(?:an?|one|another|some)?\s*(?:extra\s+|new\s+)?"
    r"(?:step|section|part|line|bit|exercise|something)s?\s+(?:about|on|for|with|around)\s+"
    r"(?:a\s+|an\s+|the\s+|some\s+)?([^.,;!?\n]+)", re.I)
_ADD_SHORT = re.compile(r"\badd\s+(?:a\s+|an\s+|some\s+)?([a-z][a-z -]{2,30}?)\s+step\b", re.I)
_REMOVE_TOPIC = re.compile(
    r"\b(?:remove|drop|delete|take out|cut|leave out|get rid of)\s+(?:the\s+)?"
    r"(?:step|part|bit|line|sentence|section|mention)s?\s+(?:about|on|mentioning|with)\s+"
    r"(?:the\s+)?([^.,;!?\n]+)", re.I)
_NO_TOPIC = re.compile(r"\b(?:don't|do not|no need to)\s+mention\s+([^.,;!?\n]+)", re.I)
_REMOVE_SHORT = re.compile(
    r"\b(?:remove|drop|delete|cut|take out)\s+(?:the\s+)?([a-z][a-z -]{2,30}?)\s+steps?\b", re.I)
_NEW_TITLE = re.compile(
    r"(?:\b(?:change|rename)\s+(?:the\s+)?(?:title|it|this)\s+(?:to\s+)?|\bcall\s+it\s+|"
    r"\btitle\s+it\s+)"
    r"[\"\u201c']?([^\"\u201d'\n]{3,60})[\"\u201d']?", re.I)


_NUMBERS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_STEP_LIMIT = re.compile(r"\b(?:to|in|into|at most|no more than|max(?:imum)?(?: of)?|only)\s+"
                         r"(\d|three|four|five|six|seven|eight)\s+steps\b", re.I)


def _topics_to_add(text: str) -> list[str]:
    topics = [m.group(1) for m in _ADD_TOPIC.finditer(text)]
    topics += [m.group(1) for m in _ADD_SHORT.finditer(text)
               if not _has(m.group(1), r"\b(more|few|another|extra|new|one|second)\b")]
    return topics


def _read_request(text: str, asks: _Asks, *, from_human: bool) -> None:
    quotes = [a or b for a, b in _QUOTED.findall(text)]
    # What a note quotes is the draft's text, not part of the request.
    low = _QUOTED.sub(" ", text).lower().replace("\u2019", "'")
    judgement = _has(low, r"judge?ment|judgmental|wording|tone")
    if quotes and _has(low, r"\b(remove|delete|rewrite|unsafe|flag|cut|take out|drop)\b"):
        (asks.rephrase if judgement else asks.remove).extend(quotes)
    elif quotes and judgement:
        asks.rephrase.extend(quotes)
    if judgement and _has(low, r"judge?ment|judgmental"):
        asks.judgemental = True
    if _has(low, r"crisis|988|emergency|hotline|lifeline|samaritans"):
        asks.crisis = True
    if _has(low, r"professional help|clinician|therapist|\bgp\b|doctor"):
        asks.professional = True
    if _has(low, r"safety (note|section)") and _has(low, r"add|missing|no |include|need"):
        asks.safety_note = True
    if _has(low, r"\bpurpose\b") and _has(low, r"add|missing|no |include|short|need"):
        asks.purpose = True
    topics = _topics_to_add(text) if from_human else []
    topical = bool(topics)
    if _has(low, r"too many steps|fewer steps|trim|8 or fewer|eight or fewer"):
        asks.fewer_steps = True
        asks.fewer_asked |= from_human
    if from_human and (m := _STEP_LIMIT.search(text)):
        n = m.group(1).lower()
        asks.step_limit = int(n) if n.isdigit() else _NUMBERS[n]
    elif not topical and _has(low, r"\b(more|another|extra|one more) steps?\b"):
        asks.extra_step = True
    elif not topical and _has(low, r"\bsteps?\b") and _has(
            low, r"\b(add|missing|only|at least|too few|no steps|needs?)\b"):
        asks.more_steps = True
    if _has(low, r"action verb|imperative|actionable|concrete action"):
        asks.imperative = True
    if _has(low, r"\bsteps? \d+ is (long|wordy)|long steps?|shorten (the )?steps?|"
                 r"steps? (are|is) too long|wordy"):
        asks.shorten_steps = True
    if _has(low, r"\b(shorter|shorten|too long|more concise|less text|briefer|"
                 r"cut (it )?down|trim|too wordy|long-winded)\b") and not _has(
            low, r"shorter sentences|\bsteps? \d+\b"):
        asks.shorten, asks.lengthen = True, False
    if _has(low, r"\b(longer|more detail|too short|expand|elaborate|fuller)\b"):
        asks.lengthen, asks.shorten = True, False
    if _has(low, r"reading level|readab|flesch|plain(er)? (words|language|english)|"
                 r"simpler|simple words|easier to read|jargon|shorter sentences|"
                 r"easier words"):
        asks.simplify = True
    if _has(low, r"validat|warm|empath|cold|compassion|kinder|gentler|softer|friendlier|"
                 r"harsh|tone"):
        asks.warm = True
        asks.warmer |= from_human
    if _has(low, r"second[- ]person|directly|'you'|\byou, your\b"):
        asks.second_person = True
    if _has(low, r"reflect|question") and _has(
            low, r"\b(add|more|only|missing|at least|another|no )"):
        asks.reflection = True
        asks.extra_question |= from_human
    if from_human:
        asks.add_topics += topics
        for m in list(_REMOVE_TOPIC.finditer(text)) + list(_NO_TOPIC.finditer(text)):
            asks.remove_topics.append(m.group(1))
        asks.remove_topics += [m.group(1) for m in _REMOVE_SHORT.finditer(text)
                               if not _has(m.group(1), r"\b(last|first|second|third|extra|new)\b")]
        # A later "remove the journal step" overrules an earlier "add a step about journaling".
        asks.add_topics = [t for t in asks.add_topics if t in topics or not any(
            _topic_in(r, t) or _topic_in(t, r) for r in asks.remove_topics)]
        if m := _NEW_TITLE.search(text):
            asks.title = m.group(1)


def _read_asks(task: DraftTask) -> _Asks:
    asks = _Asks()
    for note in task.notes:
        if note.priority != "info" and note.target in ("drafter", "broadcast"):
            _read_request(note.text, asks, from_human=False)
    for comment in task.feedback:
        _read_request(comment, asks, from_human=True)
    return asks
