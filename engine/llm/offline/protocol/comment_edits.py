"""More of what a person's comment can ask of a protocol draft, read and applied by the offline
Drafter (feedback.py reads the rest):

- a step described by a clause: "add a step where she rides the elevator to the 12th floor",
  "add running on the spot for 60 seconds as a step";
- a replacement: "replace 'a supermarket' with 'Tesco on Kingsway'";
- a statement to add: "say that worry time is at 6pm";
- a fact the comment gives and points at: "choir is on Thursdays at St Mary's, put that in",
  "The hospital is Soroka. Name it.";
- quoted words to put in a step: "put her exact thought in step 2: "...""

A comment is read sentence by sentence. A sentence that asks for nothing ("Good start.",
"His English isn't great.") is context: it is never reported as "not applied" on its own,
and it is where the facts a pointer refers to come from."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.checks.comment_asks import _REQUEST_START, is_request
from engine.checks.feedback_coverage import replacements
from engine.llm.offline.protocol.common import (
    IRREGULAR_GERUNDS,
    _cap,
    _end,
    _norm,
    _safe_fragment,
    _to_second_person,
    base_verb,
    third_to_second,
)
from engine.llm.offline.protocol.doc import _Doc

_NOT_GERUNDS = {"something", "anything", "nothing", "everything", "morning", "evening",
                "feeling", "feelings", "thing", "things", "ceiling", "building", "wedding",
                "during", "spring", "string", "ring", "king", "bring", "sibling", "meeting"}


def _gerund_stem(word: str) -> str | None:
    """ "riding" -> "ride", "sitting" -> "sit", "lying" -> "lie"; None for no gerund."""
    if word in IRREGULAR_GERUNDS:
        return IRREGULAR_GERUNDS[word]
    if not word.endswith("ing") or len(word) < 5 or word in _NOT_GERUNDS:
        return None
    stem = word[:-3]
    if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]  # sitting -> sit, shopping -> shop
    if stem.endswith(("eat", "oat")) and stem != "creat":
        return stem  # eating -> eat, floating -> float (but creating -> create)
    if stem.endswith(("c", "v", "th", "dg", "at", "iz", "ys")) or re.fullmatch(
            r"[aeiou][^aeiouwxy]", stem) or (
            len(stem) <= 4 and re.fullmatch(r".*[^aeiou][aeiou][^aeiouwxy]", stem)):
        return stem + "e"  # noticing -> notice, riding -> ride, taking -> take, using -> use
    return stem


def imperative(phrase: str) -> str | None:
    """ "riding one floor with a friend" -> "Ride one floor with a friend." (None when the
    phrase does not start with an action)."""
    words = phrase.split()
    if len(words) < 2:  # "journaling" alone is a topic (library.TOPIC_STEPS), not an action
        return None
    stem = _gerund_stem(words[0].lower())
    if stem is None:
        return None
    text = " ".join([stem, *words[1:]])
    safe = _safe_fragment(text, max_words=16)
    return _end(_cap(_to_second_person(safe))) if safe else None


# -- a step from a clause: "she rides" -> "ride" --------------------------------------------------

_SUBJECT = re.compile(
    r"^(?:she|he|they|you|we|the (?:client|patient|person|child|teen|reader)|[A-Z][a-z]+)\s+"
    r"(?:can\s+|will\s+|could\s+|should\s+|has to\s+|have to\s+|gets to\s+|tries to\s+)?")
def step_from_clause(clause: str) -> str | None:
    """ "she rides the elevator in her building" -> "Ride the elevator in your building." """
    clause = _SUBJECT.sub("", clause.strip(" ,.;:-"), count=1)
    words = clause.split()
    if len(words) < 2 or not words[0].isalpha():
        return None
    text = " ".join([base_verb(words[0]), *words[1:]])
    safe = _safe_fragment(third_to_second(text), max_words=24)
    return _end(_cap(_to_second_person(safe))) if safe else None


# -- what a sentence asks for --------------------------------------------------------------------

_STEP_WORD = (r"(?:an?|one|another|the)?\s*(?:(?:extra|new|early|first|last|final|further|middle)"
              r"\s+)?(?:step|rung)")
_STEP_CLAUSE = re.compile(
    r"\b(?:add|include|put in|insert|give (?:her|him|them))\s+" + _STEP_WORD +
    r"\s+(?:where|in which|that|when|during which|to|for (?:her|him|them) to)\s+(.{3,200})", re.I)
_AS_STEP = re.compile(
    r"\b(?:add|include|put in|insert)\s+(.{3,160}?)\s+as\s+" + _STEP_WORD + r"\b", re.I)
_SAY_THAT = re.compile(
    r"\b(?:say|state|add|note|explain|mention|make (?:it )?clear|tell (?:her|him|them|the "
    r"(?:client|reader)))\s+that\s+(?![-\u2013\u2014,;.])(.{3,200})", re.I)
_POINTER = re.compile(
    r"\b(?:put (?:that|this|it|both|them|those|these|(?-i:[A-Z])\w+) in|name (?:it|him|her|them|"
    r"the \w+)|mention (?:it|that|this|him|her|them|those|these|both)|include (?:that|this|it|"
    r"both|those|these)|use (?:that|this|it|the name|(?:her|his|their) (?:name|names|title))|"
    r"add (?:that|this|it|both|those|these)|(?:say|state) (?:that|this|it)"
    r"(?=\s*(?:[-\u2013\u2014,;.!?]|explicitly|clearly|$)))\b", re.I)
# "tell him to charge the phone in the kitchen": what the reader is to do, as a step.
_TELL_TO = re.compile(
    r"\b(?:tell|ask|remind|encourage|advise|get|invite)\s+(?:her|him|them|the (?:client|patient|"
    r"reader|person))\s+to\s+(.{3,160})", re.I)
# "the final step should be the cleaning appointment", "add the Clifton bridge as the top rung":
# the hardest rung, or the step the exercise ends with.
_TOP = r"(?:top|final|last|highest|hardest|biggest)\s+(?:rung|step|goal|task|challenge)"
_TOP_IS = re.compile(
    rf"\b(?:the\s+|her\s+|his\s+|their\s+)?{_TOP}\s+(?:should|must|could|would|needs? to|"
    rf"has to|ought to|can)\s+(?:actually\s+|really\s+|definitely\s+|probably\s+)?be\s+"
    rf"(.{{3,160}})|\bmake\s+(?:the\s+)?{_TOP}\s+(.{{3,160}})|"
    rf"\b(?:add|include|put in|insert|use|have)\s+(.{{3,160}}?)\s+as\s+(?:the|her|his|their|a)\s+"
    rf"{_TOP}\b", re.I)
# "Step 2 should be asking one question in the stand-up": that step, rewritten.
_STEP_N_IS = re.compile(r"\bstep\s*#?(\d{1,2})\s+(?:should|must|needs? to|has to|could)\s+"
                        r"(?:actually\s+|really\s+|instead\s+)?be\s+(.{3,160})", re.I)
# "start the ladder with sitting in the car park", "the first rung should be ...": the
# easiest rung, before the others.
_FIRST_IS = re.compile(
    r"\b(?:start|begin|open)\s+(?:the\s+|her\s+|his\s+|their\s+)?(?:ladder|hierarchy|"
    r"exposure|exercise|steps|list|rungs)\s+(?:with|by)\s+(.{3,160})|"
    r"\b(?:the\s+)?(?:first|bottom|lowest|easiest|opening)\s+(?:rung|step)\s+(?:should|must|"
    r"could|needs? to|has to|can)\s+(?:actually\s+|really\s+)?be\s+(.{3,160})", re.I)
# "also add the Samaritans number 116 123", "include Childline on 0800 1111"
_ADD_NUMBER = re.compile(
    r"\b(?:add|include|put in|give|list)\s+(?:the\s+|her\s+|his\s+|their\s+)?"
    r"((?-i:[A-Z])[\w'\u2019&-]*(?:\s+(?-i:[A-Z])[\w'\u2019&-]*){0,3})\s+(?:(?:crisis\s+)?"
    r"(?:number|line|helpline|hotline|text line)\s+)?(?:on\s+|at\s+)?(\+?\d[\d ]{2,14}\d)\b", re.I)
# "name his counsellor, Ms Haddad, as the person to contact in the safety plan"
_NAME_IN_PLAN = re.compile(
    r"\b(?:name|list|add|put)\s+(.{3,100}?)\s+as\s+((?:the|a|an|his|her|their)\s+(?:person|"
    r"contact|one|adult|someone)(?:\s+(?:to|he|she|they)\s+[\w\s]{2,30}?)?)\s+(?:in|on|for)\s+"
    r"(?:the|his|her|their|your)\s+safety\s+plan\b", re.I)
# "add her crisis line number 116 123 to the safety plan"
_TO_PLAN = re.compile(
    r"\b(?:add|put|include|list|write)\s+(.{3,120}?)\s+(?:to|in|into|on)\s+(?:the|her|his|"
    r"their|your)\s+safety\s+plan\b", re.I)
# "set the worry time for 7:30 pm": a setting of something the draft already has.
_SET = re.compile(r"\b(?:set|make|schedule|move|change)\s+(?:(?:the|her|his|their|your)\s+)?"
                  r"(?!aside\b|up\b|it\b|this\b|that\b)"
                  r"([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:for|to|at)\s+(.{2,120})", re.I)
# "name the destination, Lisbon" -> "The destination is Lisbon."
_NAME_AS = re.compile(r"\b[Nn]ame\s+(the|her|his|their|your)\s+([a-z][\w ]{2,30}?),?\s+(?:as\s+)?"
                      r"((?>(?:(?:Mr|Ms|Mrs|Dr|Prof)\.?\s+)?[A-Z][\w'\u2019-]*"
                      r"(?:\s+[A-Z][\w'\u2019-]*)*))"
                      # "name X as someone she can go to" adds a support (feedback._SUPPORT)
                      r"(?!,?\s+as\s+(?:someone|somebody|a person|a contact|the person))")
_FACT = re.compile(r"\b(?:is|are|was|were|'s)\s+(?:called|named|at|on|in)?\b|\bcalled\b|"
                   r"\bnamed\b|\b(?:should|will|must|has to|needs to)\s+be\b|"
                   r"\b(?:meets|starts|opens|closes|runs|happens|lives|works|charges)\b", re.I)
_QUOTE = re.compile(r"(?:^|\s|:)[\"\u201c'\u2018]([^\"\u201d\n]{3,120}?)[\"\u201d'\u2019]"
                    r"(?=[\s.,;:!?)]|$)")
_QUOTE_VERB = re.compile(r"\b(?:put|use|make|write|include|add|quote|insert)\b", re.I)
_STEP_REF = re.compile(r"\b(?:step\s+(\d+)|(first|last|final|opening|closing)\s+(?:\w+\s+)?"
                       r"(?:step|goal|rung|task))\b", re.I)


@dataclass
class Edit:
    """One change a sentence of a comment asks for, applied to the draft in apply()."""

    source: str
    """The comment's sentence, quoted back if the edit cannot be made."""
    kind: str
    """"step" (add `text` as a step), "sentence" (add `text` to a step or the purpose),
    "replace" (`old` -> `text` throughout), "last_step" (`text` as the final step),
    "first_step" (`text` as the easiest rung), "plan"
    (`text` in the step about the safety plan, else the safety note), "setting" (`text` in the
    step that mentions `old`)."""
    text: str
    old: str = ""
    step: int | None = None
    """Which step a sentence goes to (0-based; -1 the last), None: the purpose."""


def _step_index(sentence: str) -> int | None:
    m = _STEP_REF.search(sentence)
    if not m:
        return None
    if m.group(1):
        return int(m.group(1)) - 1
    return 0 if m.group(2).lower() in ("first", "opening") else -1


def _as_sentence(text: str, max_words: int = 24) -> str | None:
    text = re.sub(r"^\W*(?:also|and|but|so|plus|btw)\b[,\s]*", "", text.strip(), flags=re.I)
    safe = _safe_fragment(third_to_second(text.strip(" ,;:-")), max_words=max_words)
    return _end(_cap(_to_second_person(safe))) if safe else None


def bare_pointer(sentence: str) -> bool:
    """ "Pls put both in.", "Mention those.", "Make that the last step." : a sentence that only
    points at another."""
    if re.fullmatch(r"\W*(?:please\s+|pls\s+)?make\s+(?:that|this|it)\s+(?:the\s+)?(?:last|final)"
                    r"\s+(?:step|rung)\W*", sentence, re.I):
        return True
    m = _POINTER.search(sentence)
    return bool(m) and not re.search(r"\w", _POINTER.sub("", re.sub(
        r"\b(?:please|pls|plz|also|and|can you|could you|too|as well|thanks|in the \w+)\b", "",
        sentence, flags=re.I)))


def _fact_before(sentence: str, context: list[str]) -> str | None:
    """What "put that in" / "name it" points at: the statement before a dash in the same
    sentence, else the nearest earlier context sentence that states something."""
    head = re.split(r"\s[-\u2013\u2014]\s|\s*[\u2013\u2014]\s*|:\s", sentence, maxsplit=1)
    if len(head) == 2 and _FACT.search(head[0]) and (not is_request(head[0])
                                                    or _POINTER.search(head[1])):
        return head[0]  # "curfew should be 10pm - put that in": the pointer says it is a fact
    # "She may bring headphones, please add that": the statement before the pointer.
    if m := _POINTER.search(sentence):
        before = re.sub(r"[,;\s]*(?:and|so|please|pls)?[,;\s]*$", "", sentence[:m.start()],
                        flags=re.I)
        if len(before.split()) >= 3 and not _REQUEST_START.search(before):
            return before
    for c in reversed(context):
        if _FACT.search(c):
            return c
    return None


def read_edits(sentence: str, context: list[str]) -> list[Edit]:
    """The edits one request sentence asks for ([] when it asks for none of these); one
    sentence may ask for several ("The hospital is Soroka. Name it, and add a step where...")."""
    out: list[Edit] = []
    for old, new in replacements(sentence):
        if safe := _safe_fragment(new, max_words=12):
            out.append(Edit(sentence, "replace", safe, old=old))
    if out:
        return out
    where = _step_index(sentence)
    if m := _STEP_CLAUSE.search(sentence):
        if step := step_from_clause(m.group(1)):
            out.append(Edit(sentence, "step", step))
    elif m := _AS_STEP.search(sentence):
        if step := imperative(m.group(1)) or step_from_clause(m.group(1)):
            out.append(Edit(sentence, "step", step))
    if m := _SAY_THAT.search(sentence):
        if text := _as_sentence(m.group(1)):
            out.append(Edit(sentence, "sentence", text, step=where))
    if m := _NAME_AS.search(sentence):
        if text := _as_sentence(f"{m.group(1)} {m.group(2)} is {m.group(3)}"):
            out.append(Edit(sentence, "sentence", text, step=where))
    elif _POINTER.search(sentence) and (fact := _fact_before(sentence, context)):
        if text := _as_sentence(fact):
            out.append(Edit(sentence, "sentence", text, step=where))
    out += _placed_edits(sentence, where)
    quotes = _QUOTE.findall(sentence)
    if not out and len(quotes) == 1 and _QUOTE_VERB.search(sentence):
        if words := _safe_fragment(quotes[0], max_words=20):
            out.append(Edit(sentence, "quote", words, step=where))
    return out


def _noun_or_action(phrase: str) -> tuple[str, str] | None:
    """("step", "Ride the lift.") for an action, ("noun", "the cleaning appointment") else."""
    if step := imperative(phrase):
        return "step", third_to_second(step)  # "read aloud to her manager": your manager
    safe = _safe_fragment(third_to_second(phrase.strip(" ,.;:-")), max_words=20)
    return ("noun", _to_second_person(safe).rstrip(". ")) if safe else None


def _placed_edits(sentence: str, where: int | None) -> list[Edit]:
    """The forms that say where in the draft something goes: a step the reader is told to
    take, the ladder's top rung or last step, a line of the safety plan, a setting."""
    out: list[Edit] = []
    if m := _TELL_TO.search(sentence):
        if step := step_from_clause(m.group(1)):
            out.append(Edit(sentence, "step", step))
    if m := _TOP_IS.search(sentence):
        phrase = re.split(r"\s[-\u2013\u2014]\s", next(g for g in m.groups() if g))[0]
        # "... walk across her hand - please make that the last step": the pointer says where
        final = re.search(r"\b(?:final|last)\b", m.group(0), re.I) is not None
        if got := _noun_or_action(phrase):
            kind, text = got
            text = text if kind == "step" else _end(
                f"Finish with {text}" if final else f"Work up to {text} as your top rung")
            out.append(Edit(sentence, "last_step" if final else "step", text))
    if m := _STEP_N_IS.search(sentence):
        if got := _noun_or_action(m.group(2).rstrip(". ")):
            kind, text = got
            out.append(Edit(sentence, "step_n", text if kind == "step" else _end(
                f"Work with {text}"), step=int(m.group(1)) - 1))
    if m := _FIRST_IS.search(sentence):
        if got := _noun_or_action(next(g for g in m.groups() if g).rstrip(". ")):
            kind, text = got
            out.append(Edit(sentence, "first_step",
                            text if kind == "step" else _end(f"Start with {text}")))
    if (m := _ADD_NUMBER.search(sentence)) and not _TO_PLAN.search(sentence):
        name = _safe_fragment(m.group(1).strip(), max_words=6)
        if name:  # "add the Samaritans number 116 123": a line to call, kept where it is found
            out.append(Edit(sentence, "plan", _end(f"Keep the {name} number, {m.group(2)}, in "
                                                   "your phone and on your safety plan")))
    if m := _NAME_IN_PLAN.search(sentence):
        if thing := _safe_fragment(third_to_second(m.group(1).strip(" ,")), max_words=16):
            who = _to_second_person(thing) + ("," if "," in thing else "")  # "X, Ms Haddad,"
            out.append(Edit(sentence, "plan", _end(f"Add {who} to your safety plan as "
                                                   f"{third_to_second(m.group(2))}")))
    elif m := _TO_PLAN.search(sentence):
        if thing := _safe_fragment(third_to_second(m.group(1)), max_words=16):
            out.append(Edit(sentence, "plan", _end(f"Add {_to_second_person(thing)} to your "
                                                   "safety plan")))
    if (m := _SET.search(sentence)) and not out:
        if text := _as_sentence(m.group(0)):
            out.append(Edit(sentence, "setting", text, old=m.group(1), step=where))
    return out


def fact_for(name: str, context: list[str]) -> str | None:
    """A context sentence that says who or what `name` is ("Her safety contact is her
    flatmate Priya." for "mention Priya"), as a sentence for the reader."""
    first = name.split()[0] if name.split() else ""
    if not first[:1].isupper():
        return None
    for c in context:
        if re.search(rf"\b{re.escape(first)}\b", c):
            return _as_sentence(c)
    return None


# -- applying them -------------------------------------------------------------------------------


def _sub(pattern: re.Pattern[str], new: str | Callable[[re.Match[str]], str], doc: _Doc) -> int:
    count = 0

    def fn(text: str) -> str:
        nonlocal count
        out, n = pattern.subn(new, text)
        count += n
        return out

    doc.title = fn(doc.title)
    doc.purpose = fn(doc.purpose)
    doc.steps = [fn(s) for s in doc.steps]
    doc.reflection = [fn(q) for q in doc.reflection]
    doc.safety = fn(doc.safety)
    return count


def _replace(doc: _Doc, old: str, new: str) -> bool:
    """`old` -> `new` everywhere (an article or a plural of `old` goes with it); True when it
    is done now or was before (the text has `new` and no `old`)."""
    core = re.sub(r"^(?:an?|the)\s+", "", old.strip(), flags=re.I)
    if not core:
        return False
    pattern = re.compile(rf"\b(?:(?:an?|the)\s+)?{re.escape(core)}(?:e?s)?\b", re.I)
    plain = new.replace("\\", "")
    # "Worry time" -> "Rumination time": a capital where the old word had one.
    if _sub(pattern, lambda m: _cap(plain) if m.group(0)[:1].isupper() else plain, doc):
        return True
    return _norm(new) in _norm(doc.all_text())


# "charge the phone in the kitchen": a verb, then what it acts on.
_VERB_FIRST = re.compile(r"^(?!(?:the|a|an|your|his|her|their|my|some|more|less|no)\b)[a-z]+\s+"
                         r"(?:the|a|an|your|his|her|their|it|them|up|out|off|down)\b")


def _shared(old: str, step: str) -> int:
    """How many of `old`'s words `step` has, inside longer words too ("room" in "bedroom")."""
    low = step.lower()
    return sum(w.rstrip("s") in low for w in re.findall(r"[a-z]{4,}", old.lower()))


def _bring_in(doc: _Doc, old: str, new: str, add_step: Callable[[_Doc, str], None]) -> bool:
    """ "Replace 'X' with 'Y'" where the draft never said X (the reviewer remembered another
    draft, or a word near it): an action Y becomes a step; a thing Y joins the step that talks
    about what X is about ("dark room" -> the step about a dark bedroom). False when no step
    does: the comment is then reported as not applied."""
    if step := imperative(new) or (_end(_cap(new)) if _VERB_FIRST.match(new) else None):
        add_step(doc, step)
        return True
    scored = [(_shared(old, s), i) for i, s in enumerate(doc.steps)]
    best, at = max(scored, default=(0, -1))
    if not best:
        return False
    doc.steps[at] = f"{doc.steps[at].rstrip('. ')} (with {new.replace(chr(92), '')})."
    return True


def _add_sentence(doc: _Doc, text: str, step: int | None) -> None:
    if _norm(text.rstrip(".")) in _norm(doc.all_text()):
        return  # applied by an earlier revision
    if step is not None and -len(doc.steps) <= step < len(doc.steps):
        doc.steps[step] = f"{_end(doc.steps[step])} {text}"
    else:
        doc.purpose = f"{_end(doc.purpose)} {text}".strip()


def _add_quote(doc: _Doc, words: str, step: int | None) -> None:
    if _norm(words) in _norm(doc.all_text()):
        return
    if step is not None and -len(doc.steps) <= step < len(doc.steps):
        doc.steps[step] = f'{doc.steps[step].rstrip(". ")}: "{words}".'
    else:
        doc.purpose = f'{_end(doc.purpose)} In your own words: "{words}".'.strip()


def _add_where(doc: _Doc, e: Edit) -> None:
    """A safety-plan line goes to the step about the safety plan (else the safety note); a
    setting to the step that mentions what it sets (else the purpose)."""
    if _norm(e.text.rstrip(".")) in _norm(doc.all_text()):
        return
    # The whole phrase ("safety plan": not any step with "plan" in it); a setting may name
    # its thing by its last word alone ("the worry time" in a step about "time").
    about = "safety plan" if e.kind == "plan" else e.old
    words = about.split()
    keys = [about] + ([words[-1]] if e.kind == "setting" and len(words) > 1 else [])
    at = next((i for key in keys for i, s in enumerate(doc.steps)
               if words and re.search(rf"\b{re.escape(key)}", s, re.I)), None)
    if at is None and e.kind == "plan":
        doc.safety = f"{_end(doc.safety)} {e.text}".strip()
        return
    _add_sentence(doc, e.text, at if at is not None else e.step)


def _first_rung(doc: _Doc) -> int:
    """Where the easiest rung goes: after the steps that write down the fear and make the
    ladder, else first."""
    lead = [i for i, s in enumerate(doc.steps[:3])
            if re.search(r"\b(?:write down|make a ladder|list|rate each)\b", s, re.I)]
    return lead[-1] + 1 if lead else 0


def apply(doc: _Doc, edits: list[Edit], add_step: Callable[[_Doc, str], None]) -> list[str]:
    """Make each edit; the sentences of those that could not be made."""
    failed = []
    for e in edits:
        if e.kind == "replace":
            if not _replace(doc, e.old, e.text) and not _bring_in(doc, e.old, e.text, add_step):
                failed.append(e.source)
        elif e.kind == "step":
            add_step(doc, e.text)
        elif e.kind == "step_n":
            if e.step is not None and 0 <= e.step < len(doc.steps):
                doc.steps[e.step] = e.text
            else:
                failed.append(e.source)
        elif e.kind == "first_step":
            if _norm(e.text.rstrip(".")) not in _norm(doc.all_text()):
                doc.steps.insert(_first_rung(doc), e.text)
        elif e.kind == "last_step":
            if _norm(e.text.rstrip(".")) not in _norm(doc.all_text()):
                doc.steps.append(e.text)
        elif e.kind in ("plan", "setting"):
            _add_where(doc, e)
        elif e.kind == "quote":
            _add_quote(doc, e.text, e.step)
        else:
            _add_sentence(doc, e.text, e.step)
    return failed
