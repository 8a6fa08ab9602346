"""Deterministic compliance for campaign drafts: the brand's banned words and claims plus
generic ones, a paid-partnership disclosure wherever a creator is asked to post, and the
channel rules of every outreach message. Its flags bind the approval gate."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from engine.checks.base import CheckResult, FlagOut
from engine.pipelines.campaign.market import Market, market_for
from engine.pipelines.campaign.outreach import looks_like_outreach, parse_outreach

# Claims no campaign makes, whatever the brand: consumer-protection and advertising codes
# (FTC, ASA CAP Code, EU UCPD) treat them as misleading unless proven.
GENERIC_CLAIMS: tuple[tuple[str, str], ...] = (
    ("guarantee", r"\bguarantee(?:d|s)?\b"),
    ("cure", r"\bcur(?:e|es|ed|ing)\b"),
    ("risk-free", r"\brisk[- ]free\b"),
    ("no side effects", r"\bno side[- ]effects?\b"),
    ("100% claim", r"\b100 ?% (?:safe|natural|effective|guaranteed|pure)\b"),
    ("miracle", r"\bmiracle\b"),
)
DISCLOSURE = re.compile(
    r"(#ad\b|#advert\b|#sponsored\b|#werbung\b|#anzeige\b|#partner\b|paid[- ]partnership)", re.I)
# Asking a creator to make or publish something: that content needs the disclosure.
ASKS_TO_POST = re.compile(
    r"\b(post(?:s|ing)?|reels?|stor(?:y|ies)|videos?|tiktoks?|unboxing|feature us"
    r"|share (?:it|a|your)"
    r"|sponsored content|shout-?out)\b", re.I)
# A sentence that tells the reader what not to say is protective, not a claim.
PROTECTIVE = re.compile(
    r"\b(avoid(?:s|ing)?|banned|not allowed|must not|mustn't|never (?:say|use|claim|promise|"
    r"mention|write)|(?:do not|don't) (?:say|use|claim|promise|mention|write))\b", re.I)
_SENTENCE = re.compile(r"[^.!?\n|]+[.!?]?")


def _sentences(text: str, base: int = 0) -> Iterable[tuple[str, int]]:
    for m in _SENTENCE.finditer(text):
        s = m.group(0)
        lead = len(s) - len(s.lstrip())
        body = s.strip()
        if body:
            yield body, base + m.start() + lead


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A brand's word or claim as a case-insensitive whole-phrase pattern."""
    words = [re.escape(w) for w in phrase.split()]
    core = r"[\s-]+".join(words)
    left = r"\b" if re.match(r"\w", phrase) else ""
    right = r"\b" if re.search(r"\w$", phrase) else ""
    return re.compile(left + core + right, re.I)


def claim_rules(avoid_words: Iterable[str] = (), avoid_claims: Iterable[str] = ()
                ) -> list[tuple[str, str, re.Pattern[str]]]:
    """(category, what, pattern) for every banned word and claim."""
    rules = [("banned_word", w, phrase_pattern(w)) for w in avoid_words if w.strip()]
    rules += [("banned_claim", c, phrase_pattern(c)) for c in avoid_claims if c.strip()]
    rules += [("banned_claim", what, re.compile(p, re.I)) for what, p in GENERIC_CLAIMS]
    return rules


def find_claims(text: str, rules: list[tuple[str, str, re.Pattern[str]]], base: int = 0
                ) -> list[tuple[FlagOut, str]]:
    """(flag on the sentence, the banned phrase) for each sentence that makes a banned claim."""
    out = []
    for sentence, start in _sentences(text, base):
        if PROTECTIVE.search(sentence):
            continue
        for category, what, pattern in rules:
            if pattern.search(sentence):
                out.append((FlagOut(category=category, text=sentence, start=start,
                                    end=start + len(sentence), check="compliance"), what))
                break
    return out


def _disclosure(text: str, base: int, market: Market | None = None) -> list[FlagOut]:
    """A text that asks a creator to post must say the post is marked as paid, in the words
    its market accepts (Germany: "Werbung"/"Anzeige"; "#ad" alone is not enough there)."""
    strict = market is not None and bool(market.required)
    if (market.discloses(text) if strict else DISCLOSURE.search(text)):  # type: ignore[union-attr]
        return []
    for sentence, start in _sentences(text, base):
        if ASKS_TO_POST.search(sentence) and not PROTECTIVE.search(sentence):
            return [FlagOut(category="disclosure", text=sentence, start=start,
                            end=start + len(sentence), check="compliance",
                            reason=market.rule if strict else "")]  # type: ignore[union-attr]
    return []


def _channel_rules(text: str, brand_name: str) -> list[FlagOut]:
    flags = []
    for m in parse_outreach(text).messages:
        f = m.formatted(brand_name)
        anchor = text[m.start:m.end].split("\n", 1)[0] or m.handle
        at = {"text": anchor, "start": m.start, "end": m.start + len(anchor),
              "check": "channel_rules"}
        if not m.body:
            flags.append(FlagOut(category="empty_message", **at))  # type: ignore[arg-type]
        if f.limit is not None and f.length > f.limit:
            flags.append(FlagOut(category=f"{m.channel}_length", **at))  # type: ignore[arg-type]
        if m.channel == "email" and not m.subject:
            flags.append(FlagOut(category="email_subject", **at))  # type: ignore[arg-type]
    return flags


def check_campaign(text: str, *, stage: str | None = None, avoid_words: Iterable[str] = (),
                   avoid_claims: Iterable[str] = (), brand_name: str = "",
                   market: Market | None = None) -> CheckResult:
    """Flags for one campaign draft, and the compliance score they allow.

    OUTREACH drafts are checked message by message (disclosure, channel rules); briefs and
    plans as one document; the creator shortlist for claims only."""
    rules = claim_rules(avoid_words, avoid_claims)
    flags = [f for f, _ in find_claims(text, rules)]
    outreach = stage == "outreach" or (stage is None and looks_like_outreach(text))
    if outreach:
        for m in parse_outreach(text).messages:
            flags += _disclosure(m.body, m.start, market)
        flags += _channel_rules(text, brand_name)
    elif stage != "creators":
        flags += _disclosure(text, 0, market)
    flags.sort(key=lambda f: f.start)
    blocking = sum(f.blocking for f in flags)
    return CheckResult(caps={"compliance": max(0.0, round(1.0 - 0.3 * blocking, 2))}, flags=flags)


def campaign_checks(
        stage: str | None) -> Callable[[str, dict[str, Any], dict[str, Any]], CheckResult]:
    """The StageSpec check for one stage: the brand profile in the context (resolved when the
    step opened) gives its banned lists."""

    def run(text: str, run_input: dict[str, Any], context: dict[str, Any]) -> CheckResult:
        brand = context.get("brand") or {}
        return check_campaign(
            text, stage=stage,
            avoid_words=brand.get("avoid_words") or (),
            avoid_claims=brand.get("avoid_claims") or (),
            brand_name=str(brand.get("name") or run_input.get("brand_name") or ""),
            market=market_for(run_input, brand))

    return run
