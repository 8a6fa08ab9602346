"""Offline (deterministic, no network) Drafter, Safety Guardian and Clinical Critic for
protocols.

The Drafter composes an exercise from the template library in protocol_library.py, fitted
to the intent and audience. A first draft is not always perfect: a hash of the input picks
a weakness a real first draft might have (a colder tone, a missing crisis line, padded
steps...), so the loop has something to revise. Revisions parse the previous Markdown into
sections and answer the notes and human feedback on that text, so what a person wrote is
kept wherever it can be.

The critics read only the text (plus the safety screen's flags on that same text), so the
same text always gets the same scores, whoever wrote it."""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.checks.safety import screen_protocol
from engine.pipelines import protocol_library as lib
from engine.pipelines.base import DraftTask, NoteOut, Review, ReviewTask, ScoreOut

if TYPE_CHECKING:
    from engine.checks.base import FlagOut, ScreenResult
    from engine.pipelines.protocol import ProtocolDraft

MIN_STEPS, MAX_STEPS = 4, 8
LONG_STEP_WORDS = 40
"""A step longer than this is hard to follow in the moment."""
SHORT_STEP_WORDS = 30
"""What a shortened step is cut back to."""

_CRISIS = re.compile(lib.CRISIS_PATTERN, re.I)
_PROFESSIONAL = re.compile(lib.PROFESSIONAL_PATTERN, re.I)
_SECOND_PERSON = re.compile(r"\b(you|your|yours|yourself|you're|you'll|you've|you'd)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBERED = re.compile(r"^\s{0,3}(\d{1,2})[.)]\s+(.*)$")
_BULLET = re.compile(r"^\s{0,3}[-*+\u2022]\s+(.*)$")
_QUOTED = re.compile(r"\"([^\"\n]{6,})\"|\u201c([^\u201d\n]{6,})\u201d")
_PROMISE = re.compile(r"\b(cures?|guarantee[sd]?|will never (feel|be) \w+ again|"
                      r"permanently (fix|cure)|100% effective)\b", re.I)
_JUDGEMENTAL = [(re.compile(r"\b" + re.escape(w) + r"\b", re.I), w, r)
                for w, r in lib.JUDGEMENTAL_SWAPS.items()]
_PLAIN = [(re.compile(r"\b" + re.escape(w) + r"\b", re.I), r)
          for w, r in lib.PLAIN_SWAPS.items()]

# User text that must never be echoed into an exercise: instructions aimed at the model,
# and medication talk (the drafter gives no medication advice, whoever asks).
_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override|bypass|jailbreak|pretend|system prompt|"
    r"instructions?|rules?|developer mode|you are now|act as)\b", re.I)
_MEDICAL = re.compile(
    r"\b(meds?|medications?|medicines?|pills?|doses?|dosage|tablets?|prescri\w*|"
    r"antidepressants?|ssri\w*|benzo\w*|drugs?|alcohol|overdose|suicid\w*|self[- ]harm\w*|"
    r"kill\w*|die|dying|weapons?)\b", re.I)

_SECTION_ALIASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("safety", ("safety", "crisis", "getting help", "get help", "need help", "support",
                "important", "urgent help")),
    ("reflection", ("reflect", "question", "afterwards", "journal prompt", "review")),
    ("steps", ("step", "instruction", "how to", "what to do", "method", "procedure",
               "exercise")),
    ("purpose", ("purpose", "why", "about", "overview", "introduction", "aim", "goal",
                 "background", "what this is")),
)


# ======================================================================================
# Text helpers
# ======================================================================================


@lru_cache(maxsize=512)
def _screen(text: str) -> ScreenResult:
    # The drafter screens the same template sentences again and again; the screen is pure.
    return screen_protocol(text)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _sentences(text: str) -> list[str]:
    text = " ".join(text.split())
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()] if text else []


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _tidy(text: str) -> str:
    # Collapses the gaps a cut leaves; indentation at the start of a line is kept.
    text = re.sub(r"(?<=\S)[ \t]+", " ", text)
    text = re.sub(r" +([.,;:!?])", r"\1", text)
    text = re.sub(r"([.;:!?]) *([.;:!?])", r"\1", text)
    text = re.sub(r", *([.;:!?])", r"\1", text)
    text = re.sub(r"^[\s,;:]+", "", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _end(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?:" else text + "."


def _syllables(word: str) -> int:
    w = word.lower().strip("'")
    groups = re.findall(r"[aeiouy]+", w)
    n = len(groups)
    if w.endswith("e") and not w.endswith(("le", "ee")) and n > 1:
        n -= 1
    return max(1, n)


def _validating_count(text: str) -> int:
    low = " " + " ".join(text.lower().replace("\u2019", "'").split()) + " "
    return sum(low.count(p) for p in lib.VALIDATING_PHRASES)


def _is_imperative(step: str) -> bool:
    text = re.sub(r"^[^A-Za-z]+", "", step)
    words = [w.lower() for w in _words(text)[:12]]
    i = 0
    while i < len(words) and words[i] in lib.SKIPPABLE_LEADS:
        i += 1
    if i < len(words) and words[i] in lib.IMPERATIVE_VERBS:
        return True
    # "When the worry comes, write it down." / "If you can, walk outside."
    head, sep, tail = text.partition(",")
    if sep and len(_words(head)) <= 10:
        rest = [w.lower() for w in _words(tail)[:3]]
        while rest and rest[0] in lib.SKIPPABLE_LEADS:
            rest.pop(0)
        return bool(rest) and rest[0] in lib.IMPERATIVE_VERBS
    return False


def clean_user_text(value: str) -> str:
    """User text as it may be echoed into an exercise: no HTML, no Markdown structure."""
    text = html.unescape(html.unescape(value))  # "&lt;script&gt;" is a tag too
    text = re.sub(r"<(script|style|iframe|object)\b.*?(</\1\s*>|$)", " ", text,
                  flags=re.I | re.S)
    text = re.sub(r"<[^>]*>", " ", text)
    text = re.sub(r"(?i)javascript\s*:", " ", text)
    text = re.sub(r"[<>`*_#|\[\]{}\\]", " ", text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(text.split())


def _safe_fragment(text: str, max_words: int = 18) -> str | None:
    """A piece of user text fit to echo: clean, short, no instructions to the model, no
    medication or self-harm talk, and nothing the safety screen objects to."""
    text = clean_user_text(text).strip(" ,.;:-\"'")
    if not text or _INJECTION.search(text) or _MEDICAL.search(text):
        return None
    words = text.split()
    if len(words) > max_words:
        cut = " ".join(words[:max_words])
        text = cut.rsplit(",", 1)[0] if "," in cut else cut
    if len(_words(text)) < 1 or _screen(text).flags:
        return None
    return text


# ======================================================================================
# Reading the intent and the audience
# ======================================================================================

_BOILERPLATE = [re.compile(p, re.I) for p in (
    r"^(please|hi|hello|ok|okay)[,!]?\s+",
    r"^(can|could|would) you\s+",
    r"^(i|we) (need|want|would like|'d like)( you)?( to)?\s+",
    r"^(write|create|make|design|draft|build|generate|give|produce|develop|suggest)\s+"
    r"(me\s+|us\s+)?(a|an|one|some)\s+",
    r"^(a|an|one|some)\s+(?=(short|simple|brief|quick|new|structured|evidence|practical|"
    r"gentle|cbt|daily|weekly|easy|exercise|protocol|worksheet|activity|tool|technique|"
    r"intervention|plan|task|homework)\b)",
    r"^(short|simple|brief|quick|new|structured|evidence[- ]based|practical|gentle|cbt|"
    r"daily|weekly|easy)\s+",
    r"^(cbt\s+)?(exercise|protocol|worksheet|activity|tool|technique|intervention|plan|"
    r"task|homework)s?\s+",
    r"^(to|for|about|that|which|on|around|targeting|addressing)\s+",
    r"^(help(s|ing)?|support(s|ing)?|teach(es|ing)?)\s+",
    r"^(my|our|the|their)\s+",
    # "a university student manage ..." -> "manage ..." (the person, then what they face)
    r"^((a|an|one|some|the)\s+)?([\w-]+\s+){0,2}?(clients?|patients?|students?|people|persons?|"
    r"teens?|teenagers?|adults?|users?|kids|children|individuals|adolescents|parents?|"
    r"veterans?|workers?|employees?|nurses?|carers?|caregivers?)\s+",
    r"^(clients?|patients?|students?|people|persons?|teens?|teenagers?|adults?|users?|"
    r"someone|kids|children|individuals|folks|adolescents)\s+",
    r"^(who|that)\s+(are|is|have|has|struggles?|deal|deals|experiences?|suffers?|get|gets)"
    r"(\s+(with|from))?\s+",
    r"^(who|that)\s+",
    r"^(with|from)\s+",
    r"^(to\s+)?(manage|cope with|deal with|handle|reduce|overcome|work through|address|"
    r"tackle|ease|beat|understand)\s+",
)]


def situation_from_intent(intent: str) -> str | None:
    """The situation in the clinician's intent, as a phrase fit to show the client."""
    text = re.sub(r"<(script|style)\b.*?(</\1\s*>|$)", " ", intent, flags=re.I | re.S)
    for clause in re.split(r"[.!?;\n]+", text):
        fragment = _safe_fragment(clause)
        if not fragment:
            continue
        changed = True
        while changed:
            changed = False
            for pattern in _BOILERPLATE:
                new = pattern.sub("", fragment, count=1)
                if new != fragment and new.strip():
                    fragment, changed = new.strip(), True
        fragment = fragment.strip(" ,.;:-")
        if len(_words(fragment)) < 1 or len(fragment) < 3:
            continue
        if len(_words(fragment)) < 3 and _choose_score(fragment) == 0:
            continue
        fragment = re.sub(r"\b(just|simply)\s+", "", fragment, flags=re.I)
        if any(p.search(fragment) for p, _, _ in _JUDGEMENTAL):
            continue  # "my boss says I'm lazy" is not for echoing back to the client
        fragment = _to_second_person(fragment)
        first = fragment.split()[0]
        if not (first.isupper() and len(first) > 1):
            fragment = fragment[:1].lower() + fragment[1:]
        return fragment
    return None


_PRONOUNS = (("i'm", "you're"), ("i've", "you've"), ("i am", "you are"), ("i", "you"),
             ("me", "you"), ("my", "your"), ("mine", "yours"), ("myself", "yourself"),
             ("they're", "you're"), ("they are", "you are"), ("they", "you"),
             ("them", "you"), ("their", "your"), ("themselves", "yourself"))


def _to_second_person(text: str) -> str:
    """The clinician's "my clients... their" or a client's "I... my" as "you... your"."""
    for a, b in _PRONOUNS:
        text = re.sub(r"\b" + re.escape(a) + r"\b", b, text, flags=re.I)
    return text


def _exercise_scores(text: str) -> dict[str, float]:
    low = " " + clean_user_text(text).lower().replace("\u2019", "'")
    return {key: sum(w for f, w in t["keywords"].items() if re.search(r"\b" + f, low))
            for key, t in lib.TEMPLATES.items()}


def _choose_score(text: str) -> float:
    return max(_exercise_scores(text).values())


def choose_exercise(intent: str) -> str:
    """The exercise type whose keywords the intent matches best (ties: library order;
    nothing matched: the library's stable default)."""
    best, best_score = lib.DEFAULT_EXERCISE, 0.0
    for key, score in _exercise_scores(intent).items():
        if score > best_score:
            best, best_score = key, score
    return best


def _profile(audience: str) -> dict[str, Any]:
    low = " " + clean_user_text(audience).lower() + " "
    for profile in lib.AUDIENCES:
        if any(m in low for m in profile["match"]):
            return profile
    return lib.AUDIENCES[-1]


@dataclass
class _Context:
    intent: str
    audience: str
    exercise: str
    profile: dict[str, Any]
    region: str
    situation: str | None
    label: str
    seed: int

    @property
    def template(self) -> dict[str, Any]:
        return lib.TEMPLATES[self.exercise]

    def fill(self, text: str) -> str:
        out = text.replace("{setting}", self.profile["setting"]).replace(
            "{support}", self.profile["support"])
        return _plain(out) if self.profile["plain"] else out


def _context(data: dict[str, Any]) -> _Context:
    intent = str(data.get("intent") or "")
    audience = str(data.get("audience") or "adults")
    requested = data.get("exercise_type")
    exercise = requested if requested in lib.TEMPLATES else choose_exercise(intent)
    profile = _profile(audience)
    everywhere = f" {audience} {intent} ".lower()
    region = "uk" if any(m in everywhere for m in lib.UK_MARKERS) else "us"
    label = profile["label"]
    if profile is lib.AUDIENCES[-1]:
        custom = _safe_fragment(audience, max_words=6)
        if custom and custom.lower() not in ("adults", "adult", "general", "everyone", "all"):
            label = custom
    seed_text = f"{' '.join(intent.split())}|{' '.join(audience.split())}|{exercise}"
    seed = int(hashlib.sha256(seed_text.encode("utf-8")).hexdigest()[:8], 16)
    return _Context(intent, audience, exercise, profile, region,
                    situation_from_intent(intent), label, seed)


# ======================================================================================
# The draft as sections
# ======================================================================================


@dataclass
class _Doc:
    title: str = ""
    purpose: str = ""
    steps: list[str] = field(default_factory=list)
    reflection: list[str] = field(default_factory=list)
    safety: str = ""
    lead: list[str] = field(default_factory=list)
    """Paragraphs outside any known section (e.g. a draft edited into one paragraph)."""
    extras_before: list[tuple[str, str]] = field(default_factory=list)
    extras_after: list[tuple[str, str]] = field(default_factory=list)
    """Sections a person added that the schema has no field for: kept, in place."""
    found: set[str] = field(default_factory=set)
    loose_steps: list[str] = field(default_factory=list)
    """Numbered items found outside a Steps section."""
    bulleted_steps: bool = False

    def all_text(self) -> str:
        parts = [self.title, *self.lead, self.purpose, *self.steps, *self.reflection,
                 self.safety]
        parts += [b for _, b in self.extras_before + self.extras_after]
        return "\n".join(p for p in parts if p)


_BARE_SECTIONS = {"purpose", "steps", "instructions", "reflection", "reflection questions",
                  "questions", "safety", "safety note"}


def _canonical(heading: str) -> str | None:
    low = heading.lower()
    for name, aliases in _SECTION_ALIASES:
        if any(a in low for a in aliases):
            return name
    return None


def _items(lines: list[str]) -> tuple[list[str], list[str], bool, bool]:
    """List items (with their continuation lines) and the other paragraphs."""
    items: list[str] = []
    paragraphs: list[str] = []
    numbered = bulleted = False
    current: list[str] | None = None
    para: list[str] = []
    for line in lines:
        m_num, m_bul = _NUMBERED.match(line), _BULLET.match(line)
        if m_num or m_bul:
            if para:
                paragraphs.append(" ".join(para))
                para = []
            numbered |= bool(m_num)
            bulleted |= not m_num
            current = [m_num.group(2) if m_num else m_bul.group(1)]
            items.append(current[0].strip())
        elif not line.strip():
            current = None
            if para:
                paragraphs.append(" ".join(para))
                para = []
        elif current is not None and line.startswith((" ", "\t")):
            items[-1] = (items[-1] + " " + line.strip()).strip()
        else:
            current = None
            para.append(line.strip())
    if para:
        paragraphs.append(" ".join(para))
    return [i for i in items if i], [p for p in paragraphs if p], numbered, bulleted


def _paragraphs(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def parse_protocol(text: str) -> _Doc:
    """Split protocol Markdown into its sections; tolerant of human edits."""
    doc = _Doc()
    blocks: list[tuple[str | None, str, list[str]]] = [("lead", "", [])]
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        m = _HEADING.match(line)
        if m and len(m.group(1)) <= 2 and m.group(2):
            name = m.group(2).strip()
            canon = _canonical(name)
            if len(m.group(1)) == 1 and not doc.title and _norm(name) not in _BARE_SECTIONS:
                doc.title = name
                doc.found.add("title")
                continue
            blocks.append((canon, name, []))
        else:
            blocks[-1][2].append(line)

    seen_steps = False
    for canon, heading, lines in blocks:
        if canon == "lead":
            numbered = [m.group(2).strip() for ln in lines if (m := _NUMBERED.match(ln))]
            doc.loose_steps += numbered
            doc.lead += [p for p in _paragraph_blocks(lines) if p]
            continue
        if canon is None:
            body = _paragraphs(lines)
            (doc.extras_after if seen_steps else doc.extras_before).append((heading, body))
            doc.loose_steps += [m.group(2).strip() for ln in lines
                                if (m := _NUMBERED.match(ln))]
            continue
        doc.found.add(canon)
        if canon == "purpose":
            body = _paragraphs(lines)
            doc.purpose = (doc.purpose + "\n\n" + body).strip() if doc.purpose else body
        elif canon == "safety":
            body = _paragraphs(lines)
            doc.safety = (doc.safety + "\n\n" + body).strip() if doc.safety else body
        elif canon == "steps":
            seen_steps = True
            items, paras, _, bulleted = _items(lines)
            doc.steps += items
            doc.bulleted_steps |= bulleted
            if paras:
                intro = "\n\n".join(paras)
                doc.purpose = (doc.purpose + "\n\n" + intro).strip()
        elif canon == "reflection":
            seen_steps = True
            items, paras, _, _ = _items(lines)
            for p in paras:
                items += _sentences(p)
            doc.reflection += items
    return doc


def _paragraph_blocks(lines: list[str]) -> list[str]:
    out, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def _render_extras(extras: list[tuple[str, str]]) -> str:
    return "".join(f"\n\n## {h}\n\n{b}" if b else f"\n\n## {h}" for h, b in extras)


def _to_draft(doc: _Doc) -> ProtocolDraft:
    from engine.pipelines.protocol import ProtocolDraft

    return ProtocolDraft(
        title=doc.title,
        purpose=(doc.purpose + _render_extras(doc.extras_before)).strip(),
        steps=doc.steps,
        reflection=doc.reflection,
        safety_note=(doc.safety + _render_extras(doc.extras_after)).strip(),
    )


def _render(doc: _Doc) -> str:
    from engine.pipelines.protocol import render_protocol

    return render_protocol(_to_draft(doc))


# ======================================================================================
# The Drafter: first draft
# ======================================================================================

_VARIANTS = ("complete", "complete", "complete", "complete", "few_reflection", "no_crisis",
             "cold", "wordy", "cold_no_crisis", "thin")
"""How a first draft turns out, picked by a hash of the input: four in ten are complete;
the others miss something a critic will notice."""


def _plain(text: str) -> str:
    for pattern, repl in _PLAIN:
        text = pattern.sub(lambda m, r=repl: _match_case(m.group(0), r), text)
    return text


def _match_case(original: str, replacement: str) -> str:
    return _cap(replacement) if original[:1].isupper() else replacement


def _title(ctx: _Context) -> str:
    base = ctx.template["title"]
    return base if ctx.label == "adults" else f"{base} for {ctx.label}"


def _purpose(ctx: _Context, warm: bool, profile_line: bool = True) -> str:
    t = ctx.template
    sentences = [ctx.fill(t["warm"])] if warm else []
    sentences += [ctx.fill(s) for s in t["purpose"]]
    if ctx.situation:
        sentences.append(f"It was written with this situation in mind: {ctx.situation}.")
    if profile_line:
        sentences.append(ctx.fill(ctx.profile["line"]))
    return " ".join(sentences)


def _template_steps(ctx: _Context, warm: bool = True) -> list[str]:
    return [ctx.fill(core + (" " + w if warm and w else "")) for core, w in
            ctx.template["steps"]]


def _crisis_line(ctx: _Context) -> str:
    for candidate in lib.CRISIS_LINES[ctx.region] + lib.CRISIS_LINES["us"]:
        extra = lib.CRISIS_EXTRA.get(ctx.profile["key"])
        line = candidate + (" " + ctx.fill(extra) if extra else "")
        if not _screen(line).flags:
            return line
    return lib.CRISIS_LINES[ctx.region][0]


def _safety_note(ctx: _Context, crisis: bool = True) -> str:
    parts = [ctx.fill(ctx.template["safety_extra"])]
    if crisis:
        parts.append(_crisis_line(ctx))
    parts.append(lib.PROFESSIONAL_LINE)
    return " ".join(parts)


def _first_draft(ctx: _Context) -> _Doc:
    variant = _VARIANTS[ctx.seed % len(_VARIANTS)]
    cold = variant in ("cold", "cold_no_crisis")
    doc = _Doc(title=_title(ctx), found={"title", "purpose", "steps", "reflection", "safety"})
    doc.purpose = _purpose(ctx, warm=not cold, profile_line=not cold)
    doc.steps = _template_steps(ctx, warm=not cold)
    reflection = [ctx.fill(q) for q in ctx.template["reflection"]]
    doc.reflection = reflection[:3]
    doc.safety = _safety_note(ctx, crisis=variant not in ("no_crisis", "cold_no_crisis"))
    if cold:
        for i in (1, 4):
            doc.steps[i] = ("Simply " if i == 1 else "Just ") + doc.steps[i][:1].lower() \
                + doc.steps[i][1:]
    elif variant == "wordy":
        for i in (0, 2, 4, 5):
            doc.steps[i] += " " + " ".join(lib.WORDY_CLAUSES)
        doc.purpose += " " + lib.WORDY_CLAUSES[1]
    elif variant == "thin":
        doc.steps = doc.steps[:3]
        doc.reflection = []
    elif variant == "few_reflection":
        doc.reflection = reflection[:1]
    return doc


# ======================================================================================
# The Drafter: revision
# ======================================================================================


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
_NEW_TITLE = re.compile(
    r"(?:\b(?:change|rename)\s+(?:the\s+)?(?:title|it|this)\s+(?:to\s+)?|\bcall\s+it\s+)"
    r"[\"\u201c']?([^\"\u201d'\n]{3,60})[\"\u201d']?", re.I)


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
                 r"cut (it )?down|too wordy|long-winded)\b") and not _has(
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


# ---- edits ---------------------------------------------------------------------------


def _remove_text(doc: _Doc, target: str) -> bool:
    """Removes a sentence (or phrase) wherever it stands; True when found."""
    needle = " ".join(target.split())
    if not needle:
        return False
    found = False

    def cut(text: str) -> str:
        nonlocal found
        if needle in text:
            found = True
            return _tidy(text.replace(needle, " "))
        flat = " ".join(text.split())
        if needle in flat:
            found = True
            return _tidy(flat.replace(needle, " "))
        return text

    doc.purpose = cut(doc.purpose)
    doc.safety = cut(doc.safety)
    doc.steps = [s for s in (cut(s) for s in doc.steps) if _words(s)]
    doc.reflection = [q for q in (cut(q) for q in doc.reflection) if _words(q)]
    doc.lead = [p for p in (cut(p) for p in doc.lead) if _words(p)]
    doc.extras_before = [(h, cut(b)) for h, b in doc.extras_before]
    doc.extras_after = [(h, cut(b)) for h, b in doc.extras_after]
    if needle in doc.title:
        doc.title, found = "", True
    return found


def _map_text(doc: _Doc, fn) -> None:
    doc.purpose = fn(doc.purpose)
    doc.steps = [s for s in (fn(s) for s in doc.steps) if _words(s)]
    doc.reflection = [q for q in (fn(q) for q in doc.reflection) if _words(q)]
    doc.safety = fn(doc.safety)
    doc.lead = [p for p in (fn(p) for p in doc.lead) if _words(p)]
    doc.extras_before = [(h, fn(b)) for h, b in doc.extras_before]
    doc.extras_after = [(h, fn(b)) for h, b in doc.extras_after]


def _unjudge(text: str) -> str:
    # "Simply list..." becomes "List...": the verb moves up to start the sentence.
    text = re.sub(r"(^|[.!?:]\s+|\n)(?:just|simply)\s+([a-z])",
                  lambda m: m.group(1) + m.group(2).upper(), text, flags=re.I)
    for pattern, _, repl in _JUDGEMENTAL:
        text = pattern.sub(lambda m, r=repl: _match_case(m.group(0), r) if r else "", text)
    return _tidy(text)


def _rephrase(doc: _Doc, target: str) -> None:
    needle = " ".join(target.split())
    fixed = _unjudge(needle)

    def fn(text: str) -> str:
        flat = " ".join(text.split()) if "\n" not in text else text
        return flat.replace(needle, fixed) if needle in flat else text

    _map_text(doc, fn)


def _split_long(sentence: str, limit: int = 20) -> str:
    if len(_words(sentence)) <= limit:
        return sentence
    for sep in ("; ", ", and ", ", but ", ", so ", " and then ", ", then "):
        i = sentence.find(sep, len(sentence) // 4)
        if i > 0:
            head = _end(sentence[:i].rstrip(",;"))
            tail = sentence[i + len(sep):].strip()
            if len(_words(head)) >= 4 and len(_words(tail)) >= 4:
                return head + " " + _cap(_split_long(tail, limit))
    return sentence


def _simplify_text(text: str) -> str:
    """Plainer words and shorter sentences, line by line, so lists and headings stay."""
    out = []
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            out.append(line)
            continue
        prefix, body = re.match(r"^(\s*(?:[-*+]\s+|\d+[.)]\s+)?)(.*)$", line).groups()
        out.append(prefix + " ".join(_split_long(s) for s in _sentences(_plain(body))))
    return "\n".join(out)


def _hard(sentence: str) -> bool:
    words = _words(sentence)
    return len(words) >= 12 and sum(_syllables(w) for w in words) / len(words) > 1.9


def _drop_hard_sentences(text: str) -> str:
    """Cuts jargon-heavy sentences from a paragraph while two or more sentences remain."""
    paras = text.split("\n\n")
    sentences = _sentences(paras[0])
    while len(sentences) > 2 and any(_hard(s) for s in sentences):
        sentences.remove(next(s for s in reversed(sentences) if _hard(s)))
    return "\n\n".join([" ".join(sentences), *paras[1:]])


def _shorten_step(step: str, limit: int = SHORT_STEP_WORDS) -> str:
    sentences = _sentences(step)
    kept: list[str] = []
    for s in sentences[:2]:
        if kept and len(_words(" ".join(kept + [s]))) > limit:
            break
        kept.append(s)
    out = " ".join(kept)
    if len(_words(out)) > LONG_STEP_WORDS:
        words = out.split()
        cut = " ".join(words[:limit])
        if "," in cut:
            cut = cut.rsplit(",", 1)[0]
        out = _end(cut.rstrip(",;:"))
    return out


def _shorten_purpose(text: str, keep: int = 3) -> str:
    paras = text.split("\n\n")
    sentences = _sentences(paras[0])
    if len(sentences) <= keep:
        return text
    ranked = sorted(range(len(sentences)), key=lambda i: (
        0 if _validating_count(sentences[i]) else 1 if i == 0 else
        2 if " in mind: " in sentences[i] else 3, i))
    chosen = sorted(ranked[:keep])
    return "\n\n".join([" ".join(sentences[i] for i in chosen), *paras[1:]])


_STOP = frozenset("""about after again also before down each every from have into like more
once over some such than that their them then there these they this those through until
what when where which while with your yours yourself""".split())


def _content_words(text: str) -> set[str]:
    first = (_sentences(text) or [text])[0]
    return {w for w in _norm(first).split() if len(w) > 3 and w not in _STOP}


def _same_step(a: str, b: str) -> bool:
    """The same step, or one that does the same job (most of its key words shared)."""
    na, nb = _norm(_unjudge(a)).split(), _norm(_unjudge(b)).split()
    k = min(5, len(na), len(nb))
    if k >= 3 and na[:k] == nb[:k]:
        return True
    ca, cb = _content_words(a), _content_words(b)
    shared = len(ca & cb)
    return shared >= 2 and shared >= 0.5 * min(len(ca), len(cb))


def _top_up_steps(doc: _Doc, ctx: _Context, target: int) -> None:
    pool = _template_steps(ctx) + [ctx.fill(s) for s in ctx.template["extra_steps"]]
    for candidate in pool:
        if len(doc.steps) >= target:
            break
        if not any(_same_step(candidate, s) for s in doc.steps):
            doc.steps.append(candidate)


def _trim_steps(doc: _Doc, limit: int, protected: list[str]) -> None:
    while len(doc.steps) > limit:
        for i in range(len(doc.steps) - 2, -1, -1):
            if not any(_topic_in(t, doc.steps[i]) for t in protected):
                del doc.steps[i]
                break
        else:
            del doc.steps[-2]


def _topic_key(topic: str) -> str:
    words = [w for w in _norm(topic).split() if w not in
             ("a", "an", "the", "some", "my", "your", "their", "about", "how", "to")]
    return " ".join(words[:4])


def _topic_in(topic: str, text: str) -> bool:
    key = _topic_key(topic)
    if not key:
        return False
    stem = key.split()[0][:5] if len(key.split()) == 1 else key
    return stem in _norm(text)


def _topic_step(ctx: _Context, topic: str) -> str | None:
    low = topic.lower()
    for keys, step in lib.TOPIC_STEPS:
        if any(k in low for k in keys):
            return ctx.fill(step)
    safe = _safe_fragment(topic, max_words=8)
    if not safe:
        return None
    return (f"Spend a few minutes on {safe[:1].lower() + safe[1:]}, in whatever way feels "
            f"manageable for you.")


def _make_imperative(step: str) -> str:
    if _is_imperative(step):
        return step
    stripped = re.sub(
        r"^(you (could|can|might|should|may|will|need to|want to|are going to)|"
        r"try to|please|it is (helpful|important|useful|good) to|it helps to|"
        r"the (client|patient|person) (should|will|can)|they (should|will|can)|"
        r"we (will|can)|let's)\s+", "", step.strip(), flags=re.I)
    words = _words(stripped)
    if len(words) > 1 and words[0].lower() == "you" and words[1].lower() in lib.IMPERATIVE_VERBS:
        stripped = stripped.split(None, 1)[1]
    stripped = _cap(stripped)
    if _is_imperative(stripped):
        return stripped
    # A statement ("Worries are reviewed at worry time.") becomes something to make happen.
    return "Make sure " + stripped[:1].lower() + stripped[1:] if not re.match(
        r"(I|I'm|I've)\b", stripped) else "Try this: " + stripped


def _second_person(text: str) -> str:
    text = re.sub(r"\b(the |each |every )?(client|patient|participant|individual|user|"
                  r"person)s?\b", "you", text, flags=re.I)
    text = re.sub(r"\b(his or her|his/her|their)\b", "your", text, flags=re.I)
    for wrong, right in (("you is", "you are"), ("you has", "you have"),
                         ("you was", "you were"), ("you does", "you do")):
        text = re.sub(r"\b" + wrong + r"\b", right, text, flags=re.I)
    text = re.sub(r"\b(you|You) (should |will |can )?([a-z]+)\b",
                  lambda m: f"{m.group(1)} {m.group(2) or ''}{_base_verb(m.group(3))}", text)
    return re.sub(r"(^|[.!?]\s+)you\b", lambda m: m.group(1) + "You", text)


def _base_verb(word: str) -> str:
    """"learns" -> "learn", "reaches" -> "reach", "tries" -> "try" for known verbs."""
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + repl in lib.IMPERATIVE_VERBS:
            return word[: -len(suffix)] + repl
    return word


def _restructure_lead(doc: _Doc) -> None:
    """Sorts loose sentences (a draft flattened into paragraphs) back into sections, reading
    them in the order an exercise is written: purpose, steps, reflection, safety."""
    purpose: list[str] = []
    steps: list[str] = []
    reflection: list[str] = []
    safety: list[str] = []
    phase = "purpose"
    for para in doc.lead:
        units: list[tuple[str, bool]] = []
        for line in para.split("\n"):
            m = _NUMBERED.match(line) or _BULLET.match(line)
            units += [(m.group(m.re.groups), True)] if m else [(u, False) for u in
                                                                _sentences(line)]
        for unit, listed in units:
            if unit.rstrip().endswith("?"):
                reflection.append(unit)
                phase = "reflection" if phase != "safety" else phase
            elif listed:
                steps.append(unit)
                phase = "steps"
            elif _CRISIS.search(unit) or phase in ("reflection", "safety") or (
                    phase == "steps" and _PROFESSIONAL.search(unit)
                    and re.match(r"(if|this exercise|when)\b", unit, re.I)):
                safety.append(unit)
                phase = "safety"
            elif phase == "steps" and (_validating_count(unit) or not _is_imperative(unit)):
                steps[-1] = steps[-1] + " " + unit  # a step's second sentence
            elif _is_imperative(unit):
                steps.append(unit)
                phase = "steps"
            else:
                purpose.append(unit)
    while len(steps) > MAX_STEPS:
        i = min(range(len(steps) - 1), key=lambda k: len(steps[k]) + len(steps[k + 1]))
        steps[i:i + 2] = [steps[i] + " " + steps[i + 1]]
    doc.lead = []
    doc.purpose = " ".join([*purpose, doc.purpose]).strip()
    doc.steps += steps
    doc.reflection += reflection
    doc.safety = " ".join([doc.safety, *safety]).strip()


def _warm(doc: _Doc, ctx: _Context, visibly: bool = False) -> None:
    _map_text(doc, _unjudge)
    if not _validating_count(doc.purpose):
        doc.purpose = (ctx.fill(ctx.template["warm"]) + " " + doc.purpose).strip()
    for i, step in enumerate(doc.steps):
        for core, warm in ctx.template["steps"]:
            if warm and _same_step(ctx.fill(core), step) and not _validating_count(step) \
                    and ctx.fill(warm) not in step:
                doc.steps[i] = step + " " + ctx.fill(warm)
                break
    if _validating_count(doc.all_text()) < 4 and doc.steps:
        kind = "Be kind to yourself as you practise this."
        if kind not in doc.steps[-1]:
            doc.steps[-1] = _end(doc.steps[-1]) + " " + kind
    if visibly or _validating_count(doc.all_text()) < 4:
        closing = "Take your time; there is no right or wrong way to do this."
        if closing not in doc.purpose:
            doc.purpose = _end(doc.purpose) + " " + closing


def _self_screen(doc: _Doc, ctx: _Context) -> None:
    """Nothing the safety screen flags leaves the drafter, whoever wrote it first."""
    for _ in range(4):
        flags = _screen(_render(doc)).flags
        if not flags:
            return
        for flag in flags:
            if not _remove_text(doc, flag.text):
                # A flag spanning lines: drop whatever item holds its first words.
                head = " ".join(flag.text.split()[:6])
                doc.steps = [s for s in doc.steps if head not in s]
                doc.reflection = [q for q in doc.reflection if head not in q]
        _fill_empty(doc, ctx)


def _fill_empty(doc: _Doc, ctx: _Context) -> None:
    if not doc.title.strip():
        doc.title = _title(ctx)
    if not _words(doc.purpose):
        doc.purpose = _purpose(ctx, warm=True)
    if not doc.steps:
        doc.steps = _template_steps(ctx)
    if not doc.reflection:
        doc.reflection = [ctx.fill(q) for q in ctx.template["reflection"][:3]]
    if not _words(doc.safety):
        doc.safety = _safety_note(ctx)


def _revise(doc: _Doc, ctx: _Context, asks: _Asks) -> _Doc:
    for sentence in asks.remove:
        _remove_text(doc, sentence)
    for sentence in asks.rephrase:
        _rephrase(doc, sentence)
    if asks.judgemental:
        _map_text(doc, _unjudge)
    for topic in asks.remove_topics:
        if _topic_key(topic):
            doc.steps = [s for s in doc.steps if not _topic_in(topic, s)]
            doc.reflection = [q for q in doc.reflection if not _topic_in(topic, q)]
    if doc.lead and "steps" not in doc.found:
        _restructure_lead(doc)
    elif doc.lead:
        doc.purpose = "\n\n".join([*doc.lead, doc.purpose]).strip()
        doc.lead = []
    if asks.title and (title := _safe_fragment(asks.title, max_words=10)):
        doc.title = _cap(title)

    if asks.purpose and len(_words(doc.purpose)) < 12:
        doc.purpose = (doc.purpose + " " + _purpose(ctx, warm=True)).strip()
    if asks.second_person:
        _map_text(doc, _second_person)
    if asks.imperative:
        doc.steps = [_make_imperative(s) for s in doc.steps]
    if asks.shorten_steps or asks.shorten:
        doc.steps = [_shorten_step(s) if asks.shorten or len(_words(s)) > LONG_STEP_WORDS
                     else s for s in doc.steps]
    if asks.shorten:
        doc.purpose = _shorten_purpose(doc.purpose)
        protected = asks.add_topics
        _trim_steps(doc, max(MIN_STEPS + 1, min(len(doc.steps), 6)), protected)
        doc.reflection = doc.reflection[:3]
        safety = _sentences(doc.safety)
        if len(safety) > 3:
            keep = [s for s in safety if _CRISIS.search(s) or _PROFESSIONAL.search(s)]
            doc.safety = " ".join(keep[:3] or safety[:2])
    if asks.simplify:
        doc.purpose = _drop_hard_sentences(doc.purpose)
        _map_text(doc, _simplify_text)
        doc.title = _plain(doc.title)

    if (asks.more_steps or "steps" not in doc.found) and len(doc.steps) < MIN_STEPS:
        _top_up_steps(doc, ctx, len(ctx.template["steps"]))
    if asks.extra_step:
        # Feedback is cumulative, so "add a step" must not add one on every revision.
        _top_up_steps(doc, ctx, min(len(ctx.template["steps"]) + 1, MAX_STEPS))
    if asks.lengthen:
        _top_up_steps(doc, ctx, min(MAX_STEPS, max(len(doc.steps) + 1, 7)))
    if asks.fewer_steps:
        _trim_steps(doc, MAX_STEPS, asks.add_topics)
    for topic in asks.add_topics:
        if _topic_in(topic, " ".join(doc.steps)):
            continue
        step = _topic_step(ctx, topic)
        if step and not any(_same_step(step, s) for s in doc.steps):
            _trim_steps(doc, MAX_STEPS - 1, asks.add_topics)
            doc.steps.insert(max(0, len(doc.steps) - 1), step)

    questions = [ctx.fill(q) for q in ctx.template["reflection"]]
    wanted = 4 if asks.lengthen else 3 if asks.reflection else 0
    if asks.extra_question:
        wanted = 4
    for q in questions:
        if len(doc.reflection) >= wanted:
            break
        if not any(_norm(q) == _norm(r) for r in doc.reflection):
            doc.reflection.append(q)

    if asks.warm:
        _warm(doc, ctx, visibly=asks.warmer)
    if asks.safety_note and not _words(doc.safety):
        doc.safety = _safety_note(ctx)
    if (asks.crisis or asks.safety_note) and not _CRISIS.search(doc.safety):
        doc.safety = (_end(doc.safety) + " " + _crisis_line(ctx)).strip()
    if (asks.professional or asks.safety_note) and not _PROFESSIONAL.search(doc.safety):
        doc.safety = (_end(doc.safety) + " " + lib.PROFESSIONAL_LINE).strip()
    _fill_empty(doc, ctx)
    return doc


def draft_protocol(task: DraftTask) -> ProtocolDraft:
    ctx = _context(task.input)
    asks = _read_asks(task)
    if task.previous and task.previous.strip():
        doc = _revise(parse_protocol(task.previous), ctx, asks)
    else:
        doc = _first_draft(ctx)
        if task.notes or task.feedback:
            doc = _revise(parse_protocol(_render(doc)), ctx, asks)
    _self_screen(doc, ctx)
    return _to_draft(doc)


# ======================================================================================
# The critics
# ======================================================================================


def _body_text(doc: _Doc) -> str:
    parts = [*doc.lead, doc.purpose, *doc.steps, *doc.reflection, doc.safety]
    parts += [b for _, b in doc.extras_before + doc.extras_after]
    return "\n".join(p for p in parts if p)


def _readability(text: str) -> tuple[float, float]:
    """(Flesch reading ease, average sentence length in words); list items and lines
    count as sentence breaks."""
    sentences = [s for line in text.split("\n") for s in _sentences(line) if _words(s)]
    words = _words(text)
    if not words or not sentences:
        return 100.0, 0.0
    asl = len(words) / len(sentences)
    spw = sum(_syllables(w) for w in words) / len(words)
    return 206.835 - 1.015 * asl - 84.6 * spw, asl


def _quote(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split()).replace('"', "'")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _note(priority: str, text: str) -> NoteOut:
    return NoteOut(target="drafter", priority=priority, text=text)


def _clamp(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 3)


def _flags_for(task: ReviewTask) -> list[FlagOut]:
    flags = list(_screen(task.content).flags)
    seen = {(f.category, f.text) for f in flags}
    for f in task.flags:
        # Only flags on this very text: the score must follow the text.
        if f.text and f.text in task.content and (f.category, f.text) not in seen:
            flags.append(f)
            seen.add((f.category, f.text))
    return flags


def review_safety(task: ReviewTask) -> Review:
    text = task.content
    screen = _screen(text)
    flags = _flags_for(task)  # the screen's flags, then any others found on this text
    doc = parse_protocol(text)
    notes: list[NoteOut] = []
    score = 1.0
    for f in flags:
        score -= 0.3
        notes.append(_note("critical", f"Safety flag ({f.category.replace('_', ' ')}): remove "
                                       f"or rewrite this sentence: \"{_quote(f.text)}\""))
    has_note = "safety" in doc.found and bool(_words(doc.safety))
    if not has_note:
        score -= 0.3
        notes.append(_note("critical", "Add a Safety note section that names a crisis "
                                       "resource (call or text 988 in the US, or local "
                                       "emergency services) and points to the clinician."))
    if not _CRISIS.search(doc.safety if has_note else text):
        score -= 0.25
        if has_note:
            notes.append(_note("critical", "The safety note has no crisis resource: add a "
                                           "line to call or text 988 (US) or local "
                                           "emergency services if the reader feels unsafe."))
    if has_note and not _PROFESSIONAL.search(doc.safety):
        score -= 0.05
        notes.append(_note("warning", "Point the reader to professional help in the safety "
                                      "note (their clinician, GP or therapist)."))
    for sentence in _sentences(" ".join(_body_text(doc).split("\n"))):
        if _PROMISE.search(sentence):
            score -= 0.1
            notes.append(_note("warning", "Avoid promising outcomes; rewrite this sentence: "
                                          f"\"{_quote(sentence)}\""))
    score = min(score, screen.safety_score)
    if not notes:
        notes.append(_note("info", "Screen found nothing; the safety note names a crisis "
                                   "resource and professional help."))
    return Review(scores=[ScoreOut(name="safety", value=_clamp(score))], notes=notes,
                  verdict=None)


def _empathy(doc: _Doc) -> tuple[float, list[NoteOut]]:
    text = _body_text(doc)
    words = _words(text)
    notes: list[NoteOut] = []
    if not words:
        return 0.0, [_note("critical", "The draft is empty.")]
    rate = 100.0 * len(_SECOND_PERSON.findall(text)) / len(words)
    validating = _validating_count(text)
    judged: list[tuple[str, str]] = []
    for sentence in _sentences(" ".join(text.split("\n"))):
        for pattern, word, _ in _JUDGEMENTAL:
            if pattern.search(sentence):
                judged.append((word, sentence))
                break
    score = (0.45 + 0.2 * min(rate / 6.0, 1.0) + 0.35 * min(validating, 4) / 4
             - min(0.35, 0.07 * len(judged)))
    if validating < 3:
        notes.append(_note("warning", "Warm the tone: add validating phrases (for example: "
                                      "it's understandable to feel this way; be kind to "
                                      "yourself; take your time)."))
    if rate < 3.0:
        notes.append(_note("warning", "Speak to the reader directly in the second person "
                                      "(you, your) rather than about them."))
    for word, sentence in judged[:4]:
        notes.append(_note("warning", f"Judgemental wording ('{word}'); rephrase this "
                                      f"sentence without it: \"{_quote(sentence)}\""))
    return _clamp(score), notes


def _clinical(doc: _Doc) -> tuple[float, list[NoteOut]]:
    notes: list[NoteOut] = []
    score = 1.0
    if not doc.title.strip():
        score -= 0.05
        notes.append(_note("warning", "Add a title (a '# ' heading) that names the exercise."))
    purpose_words = len(_words(doc.purpose))
    if "purpose" not in doc.found or purpose_words == 0:
        score -= 0.15
        notes.append(_note("warning", "Add a Purpose section: one or two sentences on what "
                                      "the exercise is for and why it helps."))
    elif purpose_words < 8:
        score -= 0.05
        notes.append(_note("warning", "The purpose is very short; add why the exercise helps."))

    steps = doc.steps if "steps" in doc.found else doc.loose_steps
    if "steps" not in doc.found:
        score -= 0.2
        notes.append(_note("critical", "Add a Steps section with 4-8 numbered, actionable "
                                       "steps."))
    n = len(steps)
    if n == 0:
        score -= 0.35
    elif n <= 2:
        score -= 0.25
    elif n == 3:
        score -= 0.15
    elif n > 10:
        score -= 0.15
    elif n > MAX_STEPS:
        score -= 0.08
    if 0 < n < MIN_STEPS:
        notes.append(_note("warning", f"Only {n} steps: add steps so there are 4-8."))
    elif n > MAX_STEPS:
        notes.append(_note("warning", f"There are {n} steps: trim to 8 or fewer."))
    if doc.bulleted_steps and "steps" in doc.found:
        score -= 0.05
        notes.append(_note("warning", "Number the steps (1., 2., ...) so they read as a "
                                      "sequence."))
    if steps:
        passive = [i for i, s in enumerate(steps, 1) if not _is_imperative(s)]
        score -= 0.2 * len(passive) / len(steps)
        for i in passive[:3]:
            notes.append(_note("warning", f"Step {i} does not start with an action verb; "
                                          f"make it a concrete action: '{_quote(steps[i-1], 80)}'"))
        long_steps = [(i, len(_words(s))) for i, s in enumerate(steps, 1)
                      if len(_words(s)) > LONG_STEP_WORDS]
        score -= min(0.2, 0.06 * len(long_steps))
        for i, count in long_steps[:3]:
            notes.append(_note("warning", f"Step {i} is long ({count} words); shorten it to "
                                          "one or two plain sentences."))

    questions = [q for q in doc.reflection if q.strip()]
    if "reflection" not in doc.found or not questions:
        score -= 0.2
        notes.append(_note("warning", "Add a Reflection section with 2-4 questions for the "
                                      "reader."))
    elif len(questions) == 1:
        score -= 0.12
        notes.append(_note("warning", "Only one reflection question: add at least one more."))
    if questions:
        non_q = sum(1 for q in questions if not q.rstrip().endswith("?"))
        score -= 0.05 * non_q / len(questions)
    if "safety" not in doc.found:
        score -= 0.1

    body = _body_text(doc)
    count = len(_words(body))
    if count < 100:
        score -= 0.15
    elif count < 150:
        score -= 0.07
    elif count > 900:
        score -= 0.2
    elif count > 650:
        score -= 0.1
    if count < 150:
        notes.append(_note("warning", f"The draft is too short ({count} words): add more "
                                      "detail to the steps and purpose."))
    elif count > 650:
        notes.append(_note("warning", f"The draft is too long ({count} words): make it "
                                      "shorter and more concise."))
    fre, asl = _readability(body)
    hard = 0.0
    if fre < 55:
        hard += min(0.2, (55 - fre) * 0.008)
    if asl > 20:
        hard += min(0.1, (asl - 20) * 0.01)
    score -= hard
    if hard >= 0.02:
        notes.append(_note("warning", f"Reading level is high (Flesch reading ease {fre:.0f}, "
                                      f"{asl:.0f} words per sentence): use shorter sentences "
                                      "and plainer words."))
    if not notes:
        notes.append(_note("info", f"Structure is complete: {n} numbered steps, "
                                   f"{len(questions)} reflection questions, {count} words, "
                                   f"Flesch reading ease {fre:.0f}."))
    return _clamp(score), notes


def review_clinical(task: ReviewTask) -> Review:
    doc = parse_protocol(task.content)
    empathy, empathy_notes = _empathy(doc)
    clinical, clinical_notes = _clinical(doc)
    notes = empathy_notes + clinical_notes
    if empathy >= 0.7 and not empathy_notes:
        notes.insert(0, _note("info", "Tone is warm, validating and speaks to the reader as "
                                      "'you'."))
    return Review(scores=[ScoreOut(name="empathy", value=empathy),
                          ScoreOut(name="clinical", value=clinical)],
                  notes=notes, verdict=None)
