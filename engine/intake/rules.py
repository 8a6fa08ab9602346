"""The offline extractor: deterministic rules that read a person's message into field values.

Three readers, in order: values recognisable anywhere (amounts, channels, dates, a creator
count); phrases that introduce a field ("our tone is", "we sell", "budget:"), whose value runs
to the next such phrase; and, when the message names no field, the answer to the question the
agent asked. The words are in cues.py; the values are read by normalise.py afterwards."""

from __future__ import annotations

import re

from engine.intake.business_type import trade_of
from engine.intake.cues import (
    CHANNEL_CONTEXT,
    CORRECTION,
    GENERIC,
    MONEY,
    NAME,
    NOT_PLACES,
    PHRASES,
    PLACE,
    PREAMBLE,
    SELLS_AFTER_NAME,
    TONE_FILLERS,
    TONE_WORDS,
    TYPE_WORD,
    WHO,
    YES,
    Cue,
    label_cues,
)
from engine.intake.fields import spec
from engine.intake.normalise import _DMY, _ISO, _MDY, CHANNEL_WORDS, NONE_WORDS
from engine.intake.schema import ExtractedValue, ExtractionOut, IntakeTask
from engine.pipelines.campaign.goal import goal_product
from engine.text import clean_text

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])|\n+")
_BRAND_REF = re.compile(r"\b(?:use|pick|existing|for)?\s*(?:the\s+)?brand(?:[ _]?id)?\s*"
                        r"(?:#|no\.?|number|:|=|is)?\s*(\d+)\b", re.I)


# A goal with these verbs names a product to feature ("try our new birria tacos").
_FEATURES = re.compile(r"\b(?:launch|introduce|promote|unveil|debut|try|order|sell|pre-sell)\b",
                       re.I)


def extract(task: IntakeTask) -> ExtractionOut:
    text = clean_text(task.message)
    found: list[ExtractedValue] = []
    used: list[tuple[int, int]] = []

    def add(field: str, value: str, source: str, span: tuple[int, int] | None = None) -> str:
        """Record a value; returns its source ("" when nothing was recorded)."""
        value = value.strip(" ,;:-\n")
        if field == "sells":
            # "a small yoga studio" is the business's kind: it sells its trade (yoga).
            trade = trade_of(value)
            if trade is not None:
                value, source = trade, "inference"
        if value:
            found.append(ExtractedValue(field=field, value=value, source=source))  # type: ignore[arg-type]
            if span:
                used.append(span)
            return source
        return ""

    brand = _BRAND_REF.search(text)
    if brand:
        used.append(brand.span())
    _phrases(text, task, add)
    _money(text, task, add, used)
    _channels(text, task, add, used)
    _dates(text, task, found, add, used)
    for m in re.finditer(r"\b(\d{1,2})\s+(?:creators|influencers)\b", text, re.I):
        add("num_creators", m.group(1), "user_input", m.span())
    if not brand and all(spec(v.field).self_evident or v.field == "region" for v in found):
        # No field was named in words: the text answers the question asked (before any
        # amount, channel or date said with it: "get 50 people in, budget 1500, June").
        _answer(text, task, add, typed=any(spec(v.field).self_evident for v in found))
    elif not brand and not {v.field for v in found} & set(task.asked):
        # "Students and commuters. Our voice is friendly.": the sentence no phrase read
        # answers the question asked.
        plain = [text[a:b] for a, b in _sentences(text) if not _cue_hits(text[a:b])]
        if len(plain) == 1:
            _answer(plain[0], task, add)
    goal = next((v.value for v in found if v.field == "goal"), None)
    if (goal and _FEATURES.search(goal) and "products" not in task.known
            and all(v.field != "products" for v in found)):
        # "try our new birria tacos": the goal names what to feature (not "fill our taproom":
        # a place). Inferred, so a product the person names later replaces it, and the card
        # shows it before confirmation.
        if product := goal_product(goal):
            add("products", product, "inference")
    found = _said_over_inferred(found)
    confirms = (task.awaiting_confirmation and not found and not brand
                and bool(YES.match(text)) and not re.search(r"\b(?:but|except|change)\b",
                                                            text, re.I))
    return ExtractionOut(values=found, confirms=confirms,
                         brand=brand.group(1) if brand else None)


def _said_over_inferred(found: list[ExtractedValue]) -> list[ExtractedValue]:
    """A field said in words in this message replaces what was inferred for it in the same
    message ("Ironside, a climbing gym. We sell day passes": day passes)."""
    said = {v.field for v in found if v.source == "user_input"}
    return [v for v in found if v.source == "user_input" or v.field not in said]


def _pick(fields: tuple[str, ...], task: IntakeTask, found_now: set[str]) -> str:
    """A phrase that may introduce several fields ("we sell" -> what it sells, or its
    products): the one asked for, else the first still missing, else the first."""
    for f in fields:
        if f in task.asked:
            return f
    for f in fields:
        if (f not in task.known or f in task.inferred) and f not in found_now:
            return f
    return fields[0]


def _phrases(text: str, task: IntakeTask, add) -> None:  # type: ignore[no-untyped-def]
    done: set[str] = set()  # fields read so far in this message
    for sentence_span in _sentences(text):
        s0, s1 = sentence_span
        sentence = text[s0:s1]
        hits = _cue_hits(sentence)
        for i, (_start, end, cue) in enumerate(hits):
            stop = hits[i + 1][0] if i + 1 < len(hits) else len(sentence)
            raw = sentence[end:stop]
            field = _pick(cue.fields, task, done)
            if spec(field).self_evident:
                continue  # amounts, channels and dates are read by their own readers
            value, span = _value_for(field, raw, cue)
            if value and (field != "goal" or _is_goal(value)):
                if add(field, value, cue.source,
                       (s0 + end + span[0], s0 + end + span[1])) != "inference":
                    done.add(field)
                if field == "business_name":
                    after = raw[span[1]:]
                    m = SELLS_AFTER_NAME.match(after)
                    if m and "sells" not in done:
                        desc = _until_place(after[m.end():])
                        if add("sells", desc, "user_input") != "inference":
                            done.add("sells")


def _is_goal(value: str) -> bool:
    """A goal says what to achieve: not "an influencer campaign", not just "email and sms"."""
    if GENERIC.fullmatch(value.lower()):
        return False
    rest = re.sub(r"(?i)\b(?:e-?mail|sms|whatsapp|teams|instagram|dms?|and|or|a|the|budget|"
                  r"of|\$?\d[\d,.]*k?|dollars?|usd)\b|[$,.]", " ", value)
    return len(rest.split()) >= 2


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in _SENTENCE.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return [(a, b) for a, b in out if b > a]


def _cue_hits(sentence: str) -> list[tuple[int, int, Cue]]:
    """Non-overlapping cue matches in order (at one place, the longest wins)."""
    hits: list[tuple[int, int, Cue]] = []
    for cue in (*label_cues(), *PHRASES):
        for m in cue.pattern.finditer(sentence):
            hits.append((m.start(), m.end(), cue))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    kept: list[tuple[int, int, Cue]] = []
    for h in hits:
        if not kept or h[0] >= kept[-1][1]:
            kept.append(h)
    return kept


def _value_for(field: str, raw: str, cue: Cue) -> tuple[str, tuple[int, int]]:
    """The value a cue introduces, and its span within `raw`."""
    if field == "business_name":
        m = NAME.match(raw.lstrip())
        if not m:
            return "", (0, 0)
        lead = len(raw) - len(raw.lstrip())
        return m.group().strip(), (lead, lead + m.end())
    if field == "region":
        m = PLACE.match(raw.lstrip())
        if not m or m.group(1).split()[0].lower() in NOT_PLACES:
            return "", (0, 0)
        lead = len(raw) - len(raw.lstrip())
        return m.group(1), (lead, lead + m.end())
    if cue.type_word:
        return cue.type_word, (0, 0)
    value = _trim(raw)
    return value, (0, len(value))


_TYPED_TAIL = re.compile(
    r"\s*(?:,|\(|\band\b)?\s*(?:\b(?:with|on|over|via|through|using|across|running|from|"
    r"between|during|starting|and|at)\b\s+)?(?:(?:a|an|the|our|about|around)\s+)?"
    r"(?:budget\b|\$|\d[\d,.]*\s*(?:k\b|thousand|usd|dollars?)|" + MONEY.pattern + "|"
    r"(?:e-?mail|sms|whatsapp|instagram|teams|text messages)\b|"
    r"(?:from|between|running|starting|during)\s+(?:[A-Z][a-z]+\s+\d|\d{4}-|[A-Z][a-z]+\s+to\b|"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b))", re.I)


def _trim(raw: str) -> str:
    """A text value without the typed clauses that follow it in the same sentence ("..., with
    a 6000 dollar budget, on email") and without trailing connectors."""
    m = _TYPED_TAIL.search(raw)
    if m and len(raw[:m.start()].split()) >= 2:
        raw = raw[:m.start()]
    raw = re.sub(r"^\s*(?:to\s+|that\s+)?", "", raw) if raw.lstrip().lower().startswith(
        ("to ", "that ")) else raw
    raw = re.sub(r"[\s,;:(]*(?:\b(?:and|but|with|so|which|also|or|please)\b[\s,]*)*$", "",
                 raw.strip(), flags=re.I)
    return raw.strip(" .,;:!?()\"'")


def _until_place(desc: str) -> str:
    m = re.search(r"\s+(?:in|based in|located in|from)\s+[A-Z]|[.;(]|,\s+(?:and\s+)?(?:we|our)\b",
                  desc)
    return _trim(desc[:m.start()] if m else desc)


def _money(text: str, task: IntakeTask, add, used) -> None:  # type: ignore[no-untyped-def]
    hits = list(MONEY.finditer(text))
    budget_word = re.search(r"\bbudget|\bspend\b", text, re.I)
    if budget_word and not hits:
        after = re.search(r"([£€$]?\s?\d[\d,]*(?:\.\d+)?\s*(?:k|thousand|m|million)?(?:\s*"
                          r"(?:usd|dollars?|bucks|eur|euros?|gbp|pounds?|shekels?))?)\b",
                          text[budget_word.end():], re.I)
        if after and not re.match(r"\s*(?:%|percent|people|customers|sign)",
                                  text[budget_word.end() + after.end():]):
            add("budget", after.group(1), "user_input")
            return
        before = re.search(r"(\d[\d,]*(?:\.\d+)?\s*k?)\s+(?:dollar\s+|usd\s+)?$",
                           text[:budget_word.start()], re.I)
        if before:
            add("budget", before.group(1), "user_input")
            return
        clause = re.split(r"[.;\n]", text[budget_word.start():])[0]
        add("budget", re.sub(r"^budget\s*(?:is|of|:|'s)?\s*", "", clause, flags=re.I),
            "user_input")
        return
    if not hits and "budget" in task.asked and len(text.split()) <= 6 and re.search(r"\d", text):
        add("budget", text, "inference", (0, len(text)))
        return
    if not hits and "budget" in task.asked and len(text.split()) <= 4:
        add("budget", text, "inference", (0, len(text)))  # "lots": read, and asked again
        return
    for i, m in enumerate(hits):
        later = hits[i + 1:]
        if later and CORRECTION.search(text[m.end():later[0].start()]):
            continue  # "3000, no wait, 3500": the correction counts
        add("budget", m.group(), "user_input", m.span())


def _channels(text: str, task: IntakeTask, add, used) -> None:  # type: ignore[no-untyped-def]
    plain = re.sub(r"\S+\.(?:com|net|org|io|co)\S*|@\w+", " ", text)
    names = []
    for pattern, key in CHANNEL_WORDS:
        for m in re.finditer(pattern, plain, re.I):
            names.append((m.start(), m.group(), key))
    if not names:
        return
    sure = [n for n in names if not re.fullmatch(r"texts?|texting|mail|dms?|teams|instagram",
                                                  n[1], re.I)]
    context = ("channels" in task.asked or CHANNEL_CONTEXT.search(plain)
               or len(sure) >= 1 or len(text.split()) <= 4)
    if not context:
        return
    keys = list(dict.fromkeys(k for _, _, k in sorted(names)))
    if re.search(r"\b(?:also|add|plus|as well)\b", text, re.I) and task.known.get("channels"):
        keys = list(dict.fromkeys([*task.known["channels"], *keys]))
    add("channels", "; ".join(keys), "user_input")


def _dates(text: str, task: IntakeTask, found, add, used) -> None:  # type: ignore[no-untyped-def]
    goal_spans = [v.value for v in found if v.field in ("goal", "products", "sells")]
    plain = text
    for g in goal_spans:
        plain = plain.replace(g, " ")
    mentions = [m for rx in (_ISO, _DMY, _MDY) for m in rx.finditer(plain)
                if _is_date(m, plain)]
    if not mentions:
        return
    if not ("dates" in task.asked or re.search(r"\b(?:from|between|running|starting|start|"
                                                r"through|until|till|during|dates?|in|over|"
                                                r"to|and)\b|20\d\d", plain, re.I)
            or len(plain.split()) <= 5):
        return
    first = min(m.start() for m in mentions)
    last = max(m.end() for m in mentions)
    add("dates", plain[first:last], "user_input")


def _is_date(m: re.Match[str], text: str) -> bool:
    """A month name counts when capitalised or next to a day or year ("may" is a verb)."""
    word = m.group()
    if word[0].isdigit():
        return True
    month = word.split()[0]
    return month[0].isupper() or bool(re.search(r"\d", word))


def _answer(text: str, task: IntakeTask, add, *, typed: bool = False) -> None:  # type: ignore[no-untyped-def]
    """A message that names no field answers the question asked: the first text field.
    `typed`: amounts, channels or dates were read from it too; then only the words before
    them answer, and only when there are some."""
    core = PREAMBLE.sub("", text).strip(" .!")
    if typed:
        m = _TYPED_TAIL.search(core)
        if not m or len(core[:m.start()].split()) < 2:
            return
        core = core[:m.start()].strip(" .!,;")
        text = core
    if text.endswith("?") or not core or GENERIC.fullmatch(core):
        return
    if YES.match(text) and len(text.split()) <= 4:
        return  # "yes" / "sounds good" answers no field's question
    if shaped := _answer_by_shape(core, task):
        add(shaped, core, "inference")
        return
    for field in task.asked:
        fs = spec(field)
        if fs.self_evident:
            continue
        if NONE_WORDS.match(core) and not fs.may_be_empty:
            return  # "none" is no audience: asked again
        value = re.sub(r"^(?:(?:it'?s|we'?re|we are|they'?re|mostly|mainly|um+|well|"
                       r"our \w+ (?:is|are))\s+)+", "", text, flags=re.I)
        if field == "business_name":
            value = _until_place(value) or value  # "Petal & Stem, in Wellington"
            m = NAME.fullmatch(value.strip(" .!"))
            if not m or len(value.split()) > 6:
                return
        if field == "region" and re.search(r"\d", value):
            return  # "sell 300 subscriptions" is no place
        if fs.kind == "text":
            value = _trim(value) or value
        add(field, value, "inference")
        return
    if TYPE_WORD.search(text):
        return


_CITY_COUNTRY = re.compile(r"[A-Z][\w'’.-]*(?:[ -][A-Z][\w'’.-]*)*,\s*[A-Z][\w'’.-]*(?:\s[A-Z]"
                           r"[\w'’.-]*)*")


def _answer_by_shape(core: str, task: IntakeTask) -> str | None:
    """A bare answer that plainly is another field than the one asked: people answer out of
    order, and putting "nerdy, precise, a bit funny" under the audience asked for shifts every
    later answer by one. Only unmistakable shapes: a list of tone words is the voice; people
    named first are the audience (while it is missing); "City, Country" is the region (once the
    name is known: "Smith, Jones" may be a name)."""
    words = re.findall(r"[a-z][a-z'-]*", core.lower())
    content = [w for w in words if w not in TONE_FILLERS]
    if ("voice" not in task.asked and content and len(words) <= 12
            and sum(w in TONE_WORDS for w in content) >= max(1, 0.75 * len(content))):
        return "voice"
    if ("audience" not in task.asked and "audience" not in task.known
            and not set(task.asked) & {"business_name", "goal"} and WHO.match(core)):
        return "audience"
    if ("audience" in task.asked and "sells" in task.inferred and not WHO.search(core)
            and not TONE_WORDS & set(words)):
        # What it sells was only guessed from its kind ("an independent bookshop"); an answer
        # about what it offers, not about people, is what it sells.
        return "sells"
    if ("region" not in task.asked and "business_name" not in task.asked
            and "business_name" in task.known and _CITY_COUNTRY.fullmatch(core)
            and core.split(",")[0].strip().lower() not in NOT_PLACES):
        return "region"
    return None

