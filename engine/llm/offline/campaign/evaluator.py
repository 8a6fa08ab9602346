"""The offline Evaluator for campaigns: brand_voice, quality and completion on a 1-5 rubric
(stored as (score - 1) / 4), a PASS/REVISE verdict and a note for every point lost.

It reads only the draft's text, the run's input and the brand profile the input names, so a
person's edit is scored exactly like an agent's draft: scores follow the text."""

from __future__ import annotations

import re
from typing import Any

from engine.checks.terms import data as coverage_data
from engine.llm.offline.campaign.common import (
    FORMAL,
    brand_name_of,
    brand_of,
    casual,
    city,
    first_name,
)
from engine.llm.offline.campaign.form import channel_moves, route
from engine.markdown import list_items, table_rows
from engine.pipelines.base import NoteOut, Review, ReviewTask, ScoreOut
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS
from engine.pipelines.campaign.compliance import claim_rules, find_claims
from engine.pipelines.campaign.creators import known_creators, parse_shortlist, shortlist_entries
from engine.pipelines.campaign.money import amount
from engine.pipelines.campaign.outreach import Message, parse_outreach
from engine.pipelines.campaign.text import budget_total, find_section, sections

HYPE = re.compile(r"\b(amazing|incredible|revolutionary|best[- ]ever|insane|unbelievable|"
                  r"game[- ]changer|world[- ]class|epic|mind[- ]blowing)\b", re.I)
PLACEHOLDER = re.compile(r"(\[(?:name|creator|brand|insert)[^\]]*\]|\{[a-z_]+\}|\bTODO\b|\bTBD\b"
                         r"|\bXXX\b|lorem ipsum|<insert)", re.I)
CONTRACTION = re.compile(r"\b\w+'(?:re|ll|ve|d|s|m|t)\b", re.I)
CTA = re.compile(r"(\?|\breply\b|\blet (?:me|us) know\b|\bbook\b|\bget in touch\b|\bcall\b)", re.I)
ACRONYMS = {"SMS", "USD", "KPI", "KPIS", "SPF", "CTA", "ROI", "CPM", "FAQ", "DM", "DMS", "UK",
            "USA", "EU", "TLV", "NYC", "YES", "STOP", "URL", "PS"}


class _Rubric:
    """Scores start at 5 and lose points with a note saying why; each note a fix."""

    def __init__(self) -> None:
        self.score = {"brand_voice": 5, "quality": 5, "completion": 5}
        self.notes: list[NoteOut] = []

    def lose(self, name: str, points: int, text: str, priority: str = "warning") -> None:
        self.score[name] -= points
        self.notes.append(NoteOut(target="drafter", priority=priority, text=text))  # type: ignore[arg-type]

    def review(self) -> Review:
        final = {k: max(1, min(5, v)) for k, v in self.score.items()}
        verdict = "PASS" if all(v >= 4 for v in final.values()) else "REVISE"
        summary = ", ".join(f"{k} {v}/5" for k, v in final.items())
        self.notes.append(NoteOut(target="broadcast", priority="info",
                                  text=f"Evaluator verdict {verdict}: {summary}."))
        return Review(scores=[ScoreOut(name=k, value=(v - 1) / 4) for k, v in final.items()],
                      notes=self.notes, verdict=verdict)  # type: ignore[arg-type]


def _prose(text: str) -> str:
    """The text without table rows and headings, for sentence-level rubrics."""
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("|", "#")))


def _voice(r: _Rubric, text: str, brand: BrandOut | None, brand_name: str, *,
           conversational: str | None) -> None:
    if brand_name and brand_name.lower() not in text.lower():
        r.lose("brand_voice", 1, f"Name the brand ({brand_name}) so the reader knows who speaks.")
    rules = claim_rules(brand.avoid_words if brand else (), brand.avoid_claims if brand else ())
    found = find_claims(text, rules)
    if found:
        words = sorted({w for _, w in found})
        r.lose("brand_voice", min(2, len(found)), f"Off-brand or banned wording: "
               f"{', '.join(repr(w) for w in words)}; rewrite those sentences.", "critical")
    hype = sorted({m.group(0).lower() for m in HYPE.finditer(text)})
    if hype:
        r.lose("brand_voice", 1, f"Cut the hype words ({', '.join(hype)}); say what is true.")
    shouting = [w for w in re.findall(r"\b[A-Z]{4,}\b", text) if w not in ACRONYMS]
    if len(shouting) >= 2 or "!!" in text:
        r.lose("brand_voice", 1, "Stop shouting: no ALL-CAPS words or double exclamation marks.")
    if conversational is not None and brand:
        if casual(brand) and not CONTRACTION.search(conversational):
            r.lose("brand_voice", 1, f"{brand.name} sounds warm and casual: use contractions "
                   "(we're, you'll) and first names.")
        if FORMAL.search(brand.voice) and (conversational.count("!") > 2 or re.search(
                r"\b(hey|awesome|super|gonna|wanna)\b", conversational, re.I)):
            r.lose("brand_voice", 1, f"{brand.name} sounds calm and professional: drop the "
                   "slang and most exclamation marks.")


def _quality(r: _Rubric, text: str) -> None:
    holes = sorted({m.group(0) for m in PLACEHOLDER.finditer(text)})
    if holes:
        r.lose("quality", 2, f"Fill in the placeholders: {', '.join(holes)}.", "critical")
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", _prose(text)) if len(s.split()) >= 3]
    if sentences:
        lengths = [len(s.split()) for s in sentences]
        if sum(lengths) / len(lengths) > 25:
            r.lose("quality", 1, "Sentences average over 25 words; split them.")
        if max(lengths) > 45:
            r.lose("quality", 1, "One sentence runs over 45 words; split it.")


def _required(r: _Rubric, text: str, wanted: dict[str, tuple[str, ...]]) -> dict[str, str | None]:
    secs = sections(text)
    found = {}
    for label, names in wanted.items():
        body = find_section(secs, *names)
        found[label] = body
        if not body:
            r.lose("completion", 1, f"Add the missing section: {label}.", "critical")
    return found


def _evaluate_brief(r: _Rubric, task: ReviewTask) -> None:
    found = _required(r, task.content, {
        "Objective": ("objective",), "Audience": ("audience",),
        "Key messages": ("key message",), "Deliverables": ("deliverable",),
        "Timeline": ("timeline", "schedule"), "Budget split": ("budget",),
        "Success metrics": ("success", "metric", "kpi")})
    messages = found["Key messages"]
    if messages is not None and len(re.findall(r"^\s*[-*]\s+\S", messages, re.M)) < 2:
        r.lose("completion", 1, "Give at least two key messages as bullets.")
    if found["Success metrics"] and not re.search(r"\d", found["Success metrics"]):
        r.lose("completion", 1, "Make the success metrics measurable: give each a number.")
    _budget_fits(r, found["Budget split"], task.input)


def _budget_fits(r: _Rubric, body: str | None, run_input: dict[str, Any]) -> None:
    if not body:
        return
    total = budget_total(body)
    budget = float(run_input.get("budget") or 0)
    if total is None:
        r.lose("completion", 1, "Give the budget as a table with amounts and a total.")
    elif budget and total > budget * 1.005:
        r.lose("completion", 1, f"The budget adds up to ${total:,.0f}, over the campaign's "
               f"${budget:,.0f}; bring it within budget.", "critical")


def _evaluate_creators(r: _Rubric, task: ReviewTask) -> None:
    rows = parse_shortlist(task.content)
    want = int(task.input.get("num_creators") or 1)
    if not rows:
        r.lose("completion", 4, "The shortlist is empty: list creators in the Shortlist table.",
               "critical")
        return
    if len(rows) < want:
        r.lose("completion", min(3, want - len(rows)), f"The brief asks for {want} creators; "
               f"the shortlist has {len(rows)}. Add {want - len(rows)} more.")
    known = known_creators(task.context)
    unknown = [e.handle for e in shortlist_entries(task.content, known) if not e.in_directory]
    for h in unknown:
        r.lose("quality", 1, f"{h} is not in the directory; check the handle or add the "
               "creator to the directory first.")
    thin = [h for h, cells in rows if len((cells.get("why") or "").split()) < 3]
    if thin:
        r.lose("quality", 1, f"Say why each creator fits (missing for {', '.join(thin)}).")


YOUR_WORK = re.compile(r"\byour\b[^.!?\n]{0,40}\b(posts?|videos?|reels?|content|channel|feed|"
                       r"work|recipes|reviews|routines?|stories|walks|tours|tips)\b", re.I)


def _niche_phrases(niche: str) -> list[str]:
    return [p.strip().lower() for p in re.split(r",|\band\b|/", niche) if len(p.strip()) >= 4]


def _personal(m: Message, creator: dict[str, Any] | None) -> bool:
    """Named, and about their work: their niche or their town, not only the brand's pitch."""
    body = m.body.lower()
    first = first_name(m.name or "")
    named = bool(first) and first.lower() in body
    if not (named and YOUR_WORK.search(m.body)):
        return False
    if creator is None:
        return True
    place = city(creator.get("location", "")).lower()
    return any(p in body for p in _niche_phrases(creator.get("niche", ""))) or bool(
        place and place in body)


def _evaluate_outreach(r: _Rubric, task: ReviewTask, brand: BrandOut | None) -> None:
    doc = parse_outreach(task.content)
    channels = list(task.input.get("channels", []))
    creators = doc.shortlist or [h for h, _ in doc.creators()]
    if not doc.messages:
        r.lose("completion", 4, "There are no messages: write one per creator and channel.",
               "critical")
        return
    # Creators are outside the company: an internal channel (Teams) is none to reach them on.
    audience = coverage_data()["channel_audience"]
    # A creator a person asked to reach on another channel is reached there (form.route).
    moves, _ = channel_moves(list(task.context.get("asked") or []),
                             [{"handle": h, "name": n} for h, n in doc.creators()])
    outside = [c for c in channels if audience.get(c) != "internal"]
    missing = [(h, c) for h in creators for c in route(h, outside, moves)
               if not getattr(doc.get(h, c), "body", "")]
    if missing:
        listed = ", ".join(f"{h} on {LABELS.get(c, c)}" for h, c in missing[:6])
        r.lose("completion", min(4, len(missing)), f"Missing messages: {listed}"
               + (" and more" if len(missing) > 6 else "") + ".", "critical")
    extra = sorted({m.channel for m in doc.messages if m.channel not in channels})
    if extra:
        r.notes.append(NoteOut(target="drafter", priority="info", text="Messages for channels "
                               f"the campaign does not use: {', '.join(extra)}."))
    known = {h: c.model_dump() for h, c in known_creators(task.context).items()}
    generic = [m for m in doc.messages if m.body and not _personal(m, known.get(m.handle))]
    if generic:
        who = ", ".join(sorted({f"{m.handle} ({LABELS.get(m.channel, m.channel)})"
                                for m in generic})[:6])
        r.lose("quality", 2 if len(generic) * 2 > len(doc.messages) else 1,
               f"Generic messages: {who}. Personalise each message: name the creator and say "
               "what you like about their niche or where they are.")
        r.lose("brand_voice", 1, "Generic copy does not sound like anyone; write as the brand "
               "speaking to this creator.")
    no_cta = [m for m in doc.messages if m.body and not CTA.search(m.body)]
    if no_cta:
        r.lose("quality", 1, "End every message with a clear next step (a question, or how to "
               f"reply); missing in {len(no_cta)} message(s).")
    repeats = [m for m in doc.messages if _repeats(m.body)]
    if repeats:
        r.lose("quality", 1, f"Repeated sentences in {len(repeats)} message(s); say each "
               "thing once.")
    _voice(r, task.content, brand, brand_name_of(task.input, brand),
           conversational="\n".join(m.body for m in doc.messages))


def _repeats(body: str) -> bool:
    sents = [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+|\n+", body) if len(s.strip()) > 30]
    return len(sents) != len(set(sents))


def _evaluate_plan(r: _Rubric, task: ReviewTask) -> None:
    found = _required(r, task.content, {
        "Schedule": ("schedule", "timeline"), "Deliverables per creator": ("deliverable",),
        "Budget": ("budget",), "KPIs": ("kpi", "metric")})
    schedule = found["Schedule"]
    if schedule and len(table_rows(schedule) or list_items(schedule.split("\n"))[0]) < 3:
        r.lose("completion", 1, "Give the schedule at least three dated steps.")
    if found["Deliverables per creator"] is not None:
        rows = table_rows(found["Deliverables per creator"] or "")
        if not rows:
            r.lose("completion", 2, "List the deliverables per creator as a table.", "critical")
        elif any(len(row) < 4 or amount(row[3]) is None for row in rows):
            r.lose("completion", 1, "Give every creator a fee.")
    if found["KPIs"] and not re.search(r"\d", found["KPIs"]):
        r.lose("completion", 1, "Give every KPI a numeric target.")
    _budget_fits(r, found["Budget"], task.input)


def review_campaign(task: ReviewTask) -> Review:
    """The Evaluator: brand_voice, quality and completion on a 1-5 rubric, and a verdict."""
    r = _Rubric()
    brand = brand_of(task.context)
    brand_name = brand_name_of(task.input, brand)
    if task.stage == "brief":
        _evaluate_brief(r, task)
    elif task.stage == "creators":
        _evaluate_creators(r, task)
    elif task.stage == "outreach":
        _evaluate_outreach(r, task, brand)
    else:
        _evaluate_plan(r, task)
    if task.stage != "outreach":
        _voice(r, task.content, brand, brand_name, conversational=None)
    _quality(r, task.content)
    return r.review()
