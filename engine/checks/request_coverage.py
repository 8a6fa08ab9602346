"""Request coverage: does the draft work with what was asked, or only paste it?

A protocol's request names a situation ("a man afraid of elevators", "exam panic"): its
content terms (the words every request shares left out) must appear in the draft outside any
sentence that quotes the request, in at least half of their number, and in the steps
themselves. A request on a topic with known needs (self-harm: a way to delay the urge and a
safety plan) needs those elements. A campaign's outreach needs a message on every channel
the marketer chose. Pure: the draft and the run's input are all it reads."""

from __future__ import annotations

import difflib
from typing import Any

from engine.checks import crisis
from engine.checks.findings import Finding, finding
from engine.checks.sentences import split_sentences
from engine.checks.step_count import asked_range, without_count
from engine.checks.terms import (
    data,
    has_phrase,
    list_items,
    normalise,
    section,
    sections,
    stem,
    terms,
    word_set,
)

CHECK = "request_coverage"
MIN_SHARE = 1 / 3
"""The share of the request's terms the draft must work with (outside pasted sentences): a
request names the situation and, around it, the person and the occasion ("a retired engineer
who avoids hospitals"); the situation must be in the steps, not every word around it."""
BUILT_ON = 3
"""Steps that use the request's terms (not quoting it) for a draft to work with it, whatever
share of the request's other words it uses."""
PASTED_SHARE = 0.8
"""A sentence holding this share of the request's words in one unbroken run quotes it."""
MIN_QUOTABLE = 4
"""A request of fewer content terms is a name for the situation, not a sentence to paste."""


def quotes(sentence: str, request: str) -> bool:
    """True when the sentence pastes the request (its words, in bulk) rather than using it."""
    asked = normalise(request).split()
    if len(terms(request)) < MIN_QUOTABLE:  # "exam panic" named in a step is the step using it
        return False
    said = normalise(sentence).split()
    run = difflib.SequenceMatcher(a=asked, b=said, autojunk=False).find_longest_match()
    return run.size >= PASTED_SHARE * len(asked)


def unquoted(text: str, request: str) -> str:
    """The draft without its sentences that paste the request."""
    return "\n".join(text[a:b] for a, b in split_sentences(text)
                     if not quotes(text[a:b], request))


def protocol_findings(text: str, run_input: dict[str, Any]) -> list[Finding]:
    intent = str(run_input.get("intent") or "")
    about = without_count(intent)  # "6 steps" is a length, not a situation to work with
    unasked = {stem(w) for topic in data()["topic"] if has_phrase(intent, topic["when"])
               for w in topic.get("unasked", "").split()}
    key = terms(about, word_set("generic", "protocol"), frozenset(unasked))
    out: list[Finding] = []
    if key:
        body = unquoted(text, intent)
        used = key & terms(body)
        steps = list_items(section(text, "steps")) or list_items(text)
        in_steps = [s for s in steps if key & terms(s) and not quotes(s, intent)]
        wanted = min(2, len(steps))
        # Steps built on the request's own words are working with it, even when the words
        # around its situation (the person's job, the day it happens) are left out.
        built_on = len(in_steps) >= BUILT_ON
        # Named by its terms, not quoted: a request may carry a name or an address.
        missing = ", ".join(sorted(key - {t for s in in_steps for t in terms(s)}))
        # A step that works with every term of the request is working with it, however few
        # steps repeat them (a thought record names the situation once, then works on it).
        if missing and ((len(used) / len(key) < MIN_SHARE and not built_on)
                        or len(in_steps) < wanted):
            out.append(finding(
                CHECK, "protocol", "request_not_covered", f"the steps do not work with: {missing}",
                f"The draft does not work with the request: build the steps from its own "
                f"situation ({missing}), not a generic template with the request quoted once.",
                text))
    out += _step_count(text, intent)
    for topic in data()["topic"]:
        if not has_phrase(intent, topic["when"]):
            continue
        for need in topic["needs"]:
            if not _has_need(text, need, run_input):
                out.append(finding(
                    CHECK, "protocol", "request_missing_element",
                    f"a request about {topic['name']} without {need['what']}",
                    f"A request about {topic['name']} needs {need['what']}: add it as a step.",
                    text, cap=data()["caps"]["request_not_covered"]))
    return out


def _step_count(text: str, intent: str) -> list[Finding]:
    """A request that names how many steps it wants ("10 steps", "no more than 5") gets that
    many: a 7-step ladder for a 10-step request is not what was asked."""
    asked = asked_range(intent)
    if asked is None:
        return []
    n = len(list_items(section(text, "steps")) or list_items(text))
    lo, hi = asked
    if lo <= n <= hi:
        return []
    want = f"{lo}" if lo == hi else f"at most {hi}" if lo <= 1 else f"{lo}-{hi}"
    return [finding(CHECK, "protocol", "request_step_count",
                    f"the request asks for {want} steps; the draft has {n}",
                    f"The request asks for {want} steps: write that many numbered steps "
                    f"(the draft has {n}).", text)]


def _has_need(text: str, need: dict[str, Any], run_input: dict[str, Any]) -> bool:
    """A crisis-line need is met by a line of the reader's region (engine/checks/crisis.py:
    988 is no crisis line for a reader in the UK); any other by one of its phrases."""
    if need.get("crisis"):
        return crisis.mentions_resource(text, crisis.region_of(run_input))
    return has_phrase(text, need["any"])


def campaign_findings(stage: str, text: str, run_input: dict[str, Any]) -> list[Finding]:
    """Outreach: a message on every chosen channel that reaches creators (a creator's
    section names its channels as ### headings)."""
    if stage != "outreach":
        return []
    labels = data()["channel_label"]  # the campaign's channels as the drafts print them
    used = {s.heading.lower() for part in sections(text) for s in sections(part.body, 3)}
    # Creators are outside the company: internal channels (Teams) are not asked of outreach.
    missing = [labels.get(c, c) for c in run_input.get("channels") or []
               if labels.get(c, c).lower() not in used
               and data()["channel_audience"].get(c) != "internal"]
    if not missing:
        return []
    return [finding(CHECK, "campaign", "request_not_covered",
                    "channels: " + ", ".join(missing),
                    f"The campaign asks for outreach on {', '.join(missing)} too: write each "
                    "shortlisted creator a message there.", text)]


def request_findings(kind: str, stage: str, text: str,
                     run_input: dict[str, Any]) -> list[Finding]:
    if kind == "protocol":
        return protocol_findings(text, run_input)
    if kind == "campaign":
        return campaign_findings(stage, text, run_input)
    return []


__all__ = ["quotes", "request_findings", "unquoted"]
