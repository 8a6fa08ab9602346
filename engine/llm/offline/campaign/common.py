"""Helpers the offline campaign agents share: the brand from the step's context, the goal's
kind, names and places, the compliance rewrite, and what a person's feedback asks for."""

from __future__ import annotations

import re
from typing import Any

from engine.checks.comment_asks import is_request, points_back
from engine.pipelines.base import DraftTask, NoteOut
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.compliance import claim_rules, find_claims
from engine.pipelines.campaign.goal import goal_product
from engine.pipelines.campaign.requests import sentences_of

CASUAL = re.compile(r"\b(warm|playful|friendly|casual|energetic|neighbourly|neighborly|fun|"
                    r"encouraging|cheerful)\b", re.I)
FORMAL = re.compile(r"\b(formal|professional|precise|calm|clinical|evidence|modest|serious)\b",
                    re.I)
GOALS: tuple[tuple[str, str, str], ...] = (
    # (goal type, keywords, headline metric)
    ("footfall", r"visit|footfall|foot traffic|store|shop|cafe|table|brunch|come in|walk-?in",
     "in-store visits from creator promo codes"),
    ("launch", r"launch|new|introduc|debut|release", "people who try the new product"),
    ("sales", r"sale|sell|order|revenue|purchase|conversion|buy", "orders with creator codes"),
    ("signups", r"sign[- ]?up|register|subscri|member|download|join|club|lead",
     "sign-ups from creator links"),
    ("awareness", r".", "new followers"),
)


def brand_of(context: dict[str, Any]) -> BrandOut | None:
    """The brand profile the step's context carries (None when the brand is gone)."""
    try:
        return BrandOut.model_validate(context["brand"]) if context.get("brand") else None
    except ValueError:  # only a name: the profile was deleted
        return None


def brand_name_of(run_input: dict[str, Any], brand: BrandOut | None) -> str:
    """The brand profile is the source of truth (the run's brand_name is what it was called
    when the run started)."""
    return brand.name if brand else str(run_input.get("brand_name") or "")


def goal_type(goal: str) -> tuple[str, str]:
    for kind, keys, metric in GOALS:
        if re.search(keys, goal, re.I):
            return kind, metric
    return "awareness", "new followers"


def casual(brand: BrandOut | None) -> bool:
    voice = brand.voice if brand else ""
    return bool(CASUAL.search(voice)) and not FORMAL.search(voice)


def first_name(name: str) -> str:
    bits = [b for b in re.split(r"\s+", name.strip()) if b and not b.endswith(".")]
    return bits[0] if bits else (name.strip() or "there")


def city(location: str) -> str:
    return location.split(",")[0].strip() if location else ""


def _sentence_case(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text and not text[:2].isupper() else text


SAFER = {
    "guarantee": "aim for", "guaranteed": "expected", "guarantees": "aims for",
    "risk-free": "easy to try", "risk free": "easy to try", "miracle": "remarkable",
    "cure": "help with", "cures": "helps with", "cured": "helped", "curing": "helping with",
}


def _safer(m: re.Match[str]) -> str | None:
    word = SAFER.get(m.group(0).lower())
    if word is None:
        return None
    return word[:1].upper() + word[1:] if m.group(0)[:1].isupper() else word


def sanitize(text: str, brand: BrandOut | None) -> str:
    """Rewrite sentences that make a banned claim: a safer word where there is one, else
    the sentence goes. Used when a revision answers compliance notes."""
    rules = claim_rules(brand.avoid_words if brand else (), brand.avoid_claims if brand else ())
    for _ in range(5):  # a sentence can carry more than one banned phrase
        found = find_claims(text, rules)
        if not found:
            break
        for flag, what in reversed(found):
            pattern = next(p for _, w, p in rules if w == what)
            m = pattern.search(flag.text)
            better = _safer(m) if m else None
            if better is None:
                fixed = ""
            else:
                fixed = flag.text[:m.start()] + better + flag.text[m.end():]  # type: ignore[union-attr]
            text = text[:flag.start] + fixed + text[flag.end:]
        text = re.sub(r"[ \t]{2,}", " ", text).strip()
    return text


def _note_text(notes: list[NoteOut]) -> str:
    return "\n".join(n.text for n in notes)


def wants_compliance_fix(task: DraftTask) -> bool:
    return bool(re.search(r"banned|claim|compliance|avoid", _note_text(task.notes), re.I))


def mentions_in(feedback: list[str]) -> list[str]:
    """Things a person asked to mention ("mention the brunch", "add: student discount", "put
    the code STRIDE15 in every message"), each comment read sentence by sentence: a fact said
    beside such an ask ("... And the address is 12 Herzl St."), or one the ask points back to
    ("The bean is a Yirgacheffe. Put that in the messages."), is said too; the wording a
    comment asks for ("we can't say 'cures', use 'helps soothe'") becomes one line on wording."""
    out = []
    for f in feedback:
        line = wording(f)
        parts = sentences_of(f) or [f]
        asked = [(k, x) for k, part in enumerate(parts) for x in _asked_in(part)
                 if not (line and _QUOTE.fullmatch(x))]
        pointer = any(_ANAPHOR.fullmatch(x) for _, x in asked)
        if asked or line:
            for k, part in enumerate(parts):
                if any(j == k for j, _ in asked) or not (pointer or _ALSO.match(part)):
                    continue
                fact = _ALSO.sub("", part).strip().rstrip(".")
                if fact and not _QUOTE.search(fact) and _VERB.search(fact):
                    asked.append((k, Clause(fact)))
        out += [x for _, x in sorted(asked, key=lambda a: a[0]) if not _ANAPHOR.fullmatch(x)]
        out += [line] if line else []
    return out


class Clause(str):
    """Something to say that is a statement ("say the kids eat free"), not a thing to mention
    ("mention the brunch"): said as its own sentence."""


# Verbs that introduce what to say as a statement, not a thing.
_SAY = re.compile(r"^(?:say|tell|let|point out|note|remind|make sure)\b", re.I)


def _asked_in(sentence: str) -> list[str]:
    """What one sentence of a comment asks to mention."""
    out: list[str] = []
    for m in _ASK.finditer(sentence):
        if _NOT_SAID.search(sentence[:m.start()]):  # "don't mention the price"
            continue
        raw = m.group(1).strip().rstrip(",")
        if _ANAPHOR.fullmatch(_WHERE.sub("", raw).strip()):
            out.append("that")  # "put that in the messages"
            continue
        said = re.sub(r"^that\s+", "", raw, flags=re.I)
        said = _A_LINE.sub("", said) or said  # "add a line about the free tasting"
        # "name the bean - it's a Yirgacheffe": the thing, then what it is
        said = _NAMED.sub(lambda n: f"{n.group(1)} {'are' if n.group(2) else 'is'} ", said)
        # "... in every message": where to say it, not what to say.
        said = _WHERE.sub("", said).strip() or said
        out.append(Clause(said) if _SAY.match(m.group(0)) else said)
    return out


_ASK = re.compile(r"(?:\b(?:mention|include|add|highlight|focus on|talk about|say|put|insert|stick|"
                  r"tell (?:them|creators|the creators)|let (?:them|creators) know|"
                  r"point out|note|remind them|make sure (?:they|creators|them) "
                  r"know)|^\W*(?:please\s+)?name)\b:?\s+"
                  r"(?!@)((?:[^.;\n!?]|\.(?=\S)){3,80})", re.I)
# "Put that in the messages": the ask points at the comment's other sentences.
_ANAPHOR = re.compile(r"(?:that|this|it|these|those|them|all that|this too|that too)", re.I)
_ALSO = re.compile(r"^\W*(?:and|also|plus|oh and|and also)\b[,\s]*", re.I)
_NAMED = re.compile(r"^((?:the|our)\s+[\w' -]+?)\s*(?:[-\u2013\u2014:]|,)\s*(?:it's|it is|"
                    r"(they're|they are))\s+", re.I)
_QUOTE = re.compile(r"(?:(?<=\s)|^)['\"\u2018\u201c]([^'\"\u2019\u201d\n]{2,60})['\"\u2019\u201d]"
                    r"(?=[\s;:,.!?)]|$)")
# Before a quoted phrase: words the comment forbids ("we can't say 'cures'", "replace 'miracle'
# with ...") or asks for ("with 'helps soothe'", "add 'dermatologically tested'").
_AVOID_BEFORE = re.compile(r"(?:\b(?:can'?t|cannot|can not|don'?t|do not|never|mustn'?t|must not|"
                           r"shouldn'?t|should not|not allowed to|may not|won'?t|doesn'?t|no)\b"
                           r"[\w\s]{0,20}?\b(?:say|use|write|claim|call it|mention)|\b(?:replace|"
                           r"swap|instead of|remove|drop|not|avoid|banned?|no more)"
                           r"(?:\s+(?:the\s+)?(?:words?|phrase|claim))?)\s*$", re.I)
_USE_BEFORE = re.compile(r"\b(?:with|use|say|add|write|as|to|include|put|call it|prefer|only)"
                         r"(?:\s+(?:the\s+)?(?:words?|phrase|claim|wording))?\s*$", re.I)


def wording(comment: str) -> str | None:
    """The words a comment asks creators to use and to avoid about the product, as one line
    ("On wording, please say 'helps soothe' and 'dermatologically tested', never 'cures'"),
    None when it quotes none of either."""
    use, avoid = [], []
    for m in _QUOTE.finditer(comment):
        before = comment[max(0, m.start() - 40):m.start()]
        if _AVOID_BEFORE.search(before):
            avoid.append(m.group(0))
        elif _USE_BEFORE.search(before):
            use.append(m.group(0))
    if not avoid and not (use and re.search(r"\b(?:claim|wording|legal|word|call|describ)", comment,
                                            re.I)):
        return None
    said = f"please say {_and(use)}" if use else ""
    never = (", never " if use else "please don't say ") + _and(avoid, "or") if avoid else ""
    return f"On wording, {said}{never}"


def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


# "a line about X", "a sentence on X", "a word about X": the X is what to say.
_A_LINE = re.compile(r"^(?:a|one|another)\s+(?:short\s+)?(?:line|sentence|note|word|mention|bit|"
                     r"paragraph|p\.?s\.?)\s+(?:about|on|of|mentioning|saying)\s+|^something\s+"
                     r"about\s+", re.I)
_THING = re.compile(r"^(?:the|a|an|our|this|these|free|each|every)\b", re.I)
_VERB = re.compile(r"\b(?:is|are|was|were|will|can|has|have|had|opens?|runs?|starts?|ends?|"
                   r"includes?|comes?|gets?|gives?|lasts?|costs?)\b|'(?:s|re|ll)\b", re.I)


def said_as_sentence(mention: str, easy: bool) -> str:
    """A thing a person asked to mention, as a sentence of the message: "the free tasting on
    Friday" -> "There's also the free tasting on Friday."; a clause stays itself ("We're closed
    on Mondays.")."""
    clause = isinstance(mention, Clause)
    mention = mention.strip().rstrip(".")
    if _THING.match(mention) and not _VERB.search(mention) and not clause:
        return f"{'There' + chr(39) + 's' if easy else 'There is'} also {_lower_first(mention)}."
    return f"{_sentence_case(mention)}."


_NOT_SAID = re.compile(r"\b(?:don'?t|do not|never|no need to|stop|avoid|can'?t|cannot|can not|"
                       r"mustn'?t|must not|shouldn'?t|should not|not allowed to|may not|"
                       r"won'?t)\s+$", re.I)
_WHERE = re.compile(r"\s+(?:in|to|on|at the end of)\s+(?:every|each|all(?: of)?(?: the)?|the|"
                    r"both)\s+(?:messages?|dms?|emails?|texts?|outreach|of them)\b.*$", re.I)


def stage_feedback(task: DraftTask) -> list[str]:
    """A person's comments on this stage (stage context), else every comment on the run:
    "mention the discount" on the brief is not an instruction for the outreach messages."""
    return list(task.context["feedback"]) if "feedback" in task.context else task.feedback


def feedback_mentions(task: DraftTask) -> list[str]:
    return mentions_in(stage_feedback(task))


SHORTER = re.compile(r"\b(short(er)?|concise|too long|brief(er)?|trim)\b", re.I)


def wants_shorter(task: DraftTask) -> bool:
    return any(SHORTER.search(f) for f in stage_feedback(task))


def asks_of(comment: str) -> list[str]:
    """The sentences of a comment that ask for something ("Also push the call to Thursday."
    too: an imperative after "also"), not those pointing back to another ("Put that in the
    messages.") or giving context ("Good start.")."""
    return [x for x in sentences_of(comment) if not points_back(x) and (
        is_request(x) or _ALSO_DO.match(x))]


# "Also push the call to Thursday", "And swap the photo": an imperative after "also"/"and"
# (not a statement: "And the address is ...", "Also, we're closed Mondays").
_ALSO_DO = re.compile(r"^\W*(?:and|also|plus|and also)\b[,\s]+(?!(?:the|a|an|our|we|we're|it|"
                      r"it's|they|there|i|you|he|she|this|that|these|those|my|their|his|her|its|"
                      r"\d)\b)[a-z]+\s+(?:the|a|an|our|it|them|her|him|this|that|"
                      r"every|each|all|to)\b", re.I)


def unhandled_feedback(task: DraftTask) -> list[str]:
    """Feedback the templates cannot act on: carried into the brief as open points. In a
    comment of several asks, each ask the templates cannot act on, on its own ("Add the
    student discount. Also move the launch to May." lists the second)."""
    def handled(x: str) -> bool:
        return bool(mentions_in([x]) or SHORTER.search(x) or re.search(r"@[\w.]+", x))

    out = []
    for f in stage_feedback(task):
        asks = asks_of(f)
        out += [x for x in asks if not handled(x)] if len(asks) > 1 else \
            [] if handled(f) else [f]
    return out


def products_for(goal: str, brand: BrandOut | None) -> list[str]:
    """What the campaign promotes, first the product its goal names, then the brand's own."""
    own = list(brand.products) if brand else []
    # The goal's own product, else a brand product the goal names ("... for weekend brunch").
    named = goal_product(goal) or next((p for p in own if re.search(
        rf"\b{re.escape(p.lower())}\b", goal.lower())), None)
    # The brand's own spelling of it ("Tempo 3 trainers", not the goal's "tempo 3 trainers").
    named = next((p for p in own if named and p.lower() == named.lower()), named)
    out = [named] if named else []
    out += [p for p in own if not named or p.lower() != named.lower()]
    return out or ["our products"]
