"""The creator directory, matching creators to a campaign (with reasons), and the shortlist.

The shortlist is the CREATORS draft itself: a Markdown table under "## Shortlist", one row
per creator. A person adds a creator by adding a row (or a line with just the @handle) and
removes one by deleting its row, in the Run page editor or through
`engine.shortlist.edit_shortlist`; the approved version's table is what the OUTREACH stage
writes to. Parsing is deterministic, so the person's choice is exactly what the next stage
sees."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session, col, func, select

from db.models import Creator
from db.session import session_scope
from engine import markdown as md
from engine.pipelines.campaign.brands import BrandOut
from engine.pipelines.campaign.channels import LABELS

DATA = Path(__file__).parent / "data" / "creators.json"
CREATOR_SHARE = 0.7
"""Share of the campaign budget that pays creators (the rest: seeding, ads, contingency)."""

_HANDLE = re.compile(r"@[A-Za-z0-9._]*[A-Za-z0-9_]")


class CreatorOut(BaseModel):
    handle: str
    name: str
    platform: str
    niche: str
    audience_size: int
    location: str
    engagement_rate: float
    contact_channel: str
    fee_usd: float
    bio: str


class Match(BaseModel):
    creator: CreatorOut
    score: float
    """In [0, 1]."""
    reasons: list[str]


class ShortlistEntry(BaseModel):
    """One creator on a shortlist: directory data when the handle is known."""

    handle: str
    name: str
    platform: str = ""
    niche: str = ""
    audience_size: int = 0
    location: str = ""
    engagement_rate: float = 0.0
    contact_channel: str = ""
    fee_usd: float = 0.0
    match_pct: int | None = None
    reasons: str = ""
    in_directory: bool = True


# -- the directory -------------------------------------------------------------------------


def norm_handle(handle: str) -> str:
    h = handle.strip().lower()
    return h if h.startswith("@") else "@" + h


def ensure_directory(session: Session) -> None:
    """Load the sample directory the first time the table is used (empty)."""
    if session.exec(select(func.count()).select_from(Creator)).one():
        return
    for item in json.loads(DATA.read_text(encoding="utf-8")):
        c = CreatorOut.model_validate(item)
        session.add(Creator(**c.model_dump() | {"handle": norm_handle(c.handle)}))
    session.flush()


def directory(session: Session) -> list[CreatorOut]:
    ensure_directory(session)
    return [CreatorOut.model_validate(c, from_attributes=True)
            for c in session.exec(select(Creator).order_by(col(Creator.handle)))]


def list_creators() -> list[CreatorOut]:
    with session_scope() as s:
        return directory(s)


def lookup(session: Session, handles: list[str]) -> dict[str, CreatorOut]:
    ensure_directory(session)
    wanted = [norm_handle(h) for h in handles]
    rows = session.exec(select(Creator).where(col(Creator.handle).in_(wanted))) if wanted else []
    return {c.handle: CreatorOut.model_validate(c, from_attributes=True) for c in rows}


# -- matching ---------------------------------------------------------------------------------

# Topic words grouped into concepts, so "latte" on the brand side meets "cafes" in a niche.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "coffee": ("coffee", "cafe", "espresso", "latte", "barista", "brew", "roast", "cortado", "cup"),
    "baking": ("bakery", "baking", "pastry", "pastries", "sourdough", "croissant", "bake"),
    "food": ("food", "brunch", "restaurant", "eat", "recipe", "market", "plant-based", "vegan"),
    "running": ("running", "run", "runner", "marathon", "5k", "10k", "trail", "race", "pacing",
                "shoe", "gait", "trainers", "fell"),
    "fitness": ("fitness", "strength", "workout", "gym", "physio", "physiotherapy"),
    "skincare": ("skin", "skincare", "cleanser", "spf", "sunscreen", "derm", "dermatology",
                 "cosmetic", "eczema", "complexion", "grooming", "beauty", "barrier"),
    "wellness": ("wellness", "healthy", "slow", "balanced"),
    "family": ("family", "families", "parent", "parenting", "kid", "mum", "buggy", "toddler"),
    "students": ("student", "students", "university", "study", "campus", "weizmann"),
    "remote work": ("remote", "laptop", "productivity", "wifi", "workers", "work"),
    "science": ("science", "chemist", "chemistry", "institute", "ingredient", "ingredients"),
    "local": ("local", "city", "neighbourhood", "neighborhood", "walks", "streets"),
}


def _words(text: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9][a-z0-9-]+", text.lower()))
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


def concepts(text: str) -> set[str]:
    words = _words(text)
    return {c for c, keys in CONCEPTS.items() if any(k in words for k in keys)}


def _place(text: str) -> tuple[str, str]:
    bits = [b.strip() for b in text.split(",") if b.strip()]
    return (bits[0].lower() if bits else "", bits[-1].lower() if bits else "")


def _place_match(c: CreatorOut, brand: BrandOut | None, audience: str) -> tuple[float, str]:
    """How near the creator is to the brand (1 its town, 0.8 a city its audience names, 0.6
    its country, 0 elsewhere) and the phrase that says so."""
    city, country = _place(c.location)
    b_city, b_country = _place(brand.location) if brand else ("", "")
    audience_text = f"{audience} {brand.audience if brand else ''}".lower()
    if city and city == b_city:
        return 1.0, f"based in {c.location.split(',')[0]}, the brand's home town"
    if city and city in audience_text:
        return 0.8, f"based in {c.location.split(',')[0]}, where the audience is"
    if country and country == b_country:
        return 0.6, f"based in {c.location.split(',')[-1].strip()}, the brand's country"
    return 0.0, f"based in {c.location}, far from the brand"


def per_creator_budget(budget: float, n: int) -> float:
    return budget * CREATOR_SHARE / max(1, n)


def _k(n: float) -> str:
    return f"{n / 1000:.1f}k".replace(".0k", "k") if n >= 1000 else f"{int(n)}"


def score_creator(c: CreatorOut, *, brand: BrandOut | None, goal: str, audience: str,
                  channels: list[str], budget: float, n: int) -> Match:
    """A match score in [0, 1] with the reasons for it, each a phrase a marketer can check."""
    brand_side = " ".join([goal, audience] + ([brand.service_type, brand.audience,
                                                " ".join(brand.products)] if brand else []))
    wanted = concepts(brand_side)
    core = concepts(f"{brand.service_type} {' '.join(brand.products)}") if brand else concepts(goal)
    niche, bio = concepts(c.niche), concepts(c.bio)
    place, where = _place_match(c, brand, audience)
    if place < 0.8:
        # "local" is a topic only in the brand's own town: another city's local-news creator
        # is not on topic for it (a Berlin cafe was offered Rehovot's city guides).
        niche, bio = niche - {"local"}, bio - {"local"}
    shared = sorted(wanted & (niche | bio))
    # What the brand sells counts most, in the creator's niche more than in their bio.
    hits = 2 * len(core & niche) + len(core & bio - niche) + len((wanted - core) & (niche | bio))
    topic = min(1.0, hits / 2)
    reasons: list[str] = []
    concerns: list[str] = []
    if shared:
        reasons.append(f"{c.niche}: on the campaign's topics ({', '.join(shared)})")
    else:
        concerns.append(f"niche ({c.niche}) is off the campaign's topics")

    (reasons if place else concerns).append(where)

    engagement = min(1.0, c.engagement_rate / 6.0)
    if c.engagement_rate >= 5:
        reasons.append(f"{c.engagement_rate:.1f}% engagement (high)")
    elif c.engagement_rate < 3:
        concerns.append(f"{c.engagement_rate:.1f}% engagement (low)")

    cap = per_creator_budget(budget, n)
    if c.fee_usd <= cap:
        fit = 1.0
        reasons.append(f"fee about ${c.fee_usd:,.0f} fits the ${cap:,.0f} per creator")
    elif c.fee_usd <= 1.5 * cap:
        fit = 0.5
        concerns.append(f"fee about ${c.fee_usd:,.0f} is above the ${cap:,.0f} per creator")
    else:
        fit = 0.0
        concerns.append(f"fee about ${c.fee_usd:,.0f} is well over the ${cap:,.0f} per creator")

    reach = 1.0 if c.contact_channel in channels else 0.0
    if reach:
        reasons.append(f"reachable on {LABELS.get(c.contact_channel, c.contact_channel)}, "
                       f"one of the campaign's channels")
    elif channels:  # said here, so outreach on the campaign's channels is no surprise later
        concerns.append(f"listed contact is {LABELS.get(c.contact_channel, c.contact_channel)}, "
                        "not one of the campaign's channels")

    # Reach weighs little: every creator gets a message on each of the campaign's channels.
    score = 0.4 * topic + 0.25 * place + 0.15 * engagement + 0.15 * fit + 0.05 * reach
    if not shared:
        score *= 0.5  # a creator off topic should not win on location and price alone
    return Match(creator=c, score=round(score, 3),
                 reasons=reasons + [f"but {x}" for x in concerns])


def reach_channel(contact_channel: str, channels: list[str]) -> str:
    """The channel a campaign reaches a creator on: their own when the campaign uses it, else
    the campaign's first channel, of those that reach people outside the company. The
    shortlist, the outreach and the plan all say this one."""
    # Creators are outside the company: a channel that reaches colleagues (Teams) is no way
    # to reach them (engine/checks/data/coverage.toml, channel_audience).
    from engine.checks.terms import data

    outside = [c for c in channels if data()["channel_audience"].get(c) != "internal"]
    if contact_channel in outside or not channels:
        return contact_channel
    return outside[0] if outside else "email"  # only internal channels chosen


def rank_creators(creators: list[CreatorOut], *, brand: BrandOut | None, goal: str,
                  audience: str, channels: list[str], budget: float, n: int) -> list[Match]:
    """Best match first; ties go to the higher engagement, then the handle."""
    matches = [score_creator(c, brand=brand, goal=goal, audience=audience, channels=channels,
                             budget=budget, n=n) for c in creators]
    return sorted(matches, key=lambda m: (-m.score, -m.creator.engagement_rate, m.creator.handle))


# -- the shortlist as a Markdown table ----------------------------------------------------------

COLUMNS = ("#", "Creator", "Name", "Platform", "Niche", "Audience", "Location", "Engagement",
           "Contact", "Fee (USD)", "Match", "Why")
EDIT_HINT = ("To add a creator, add a row (or a line) with their @handle; to remove one, delete "
             "the row. Directory details are filled in from the handle.")


def _cell(text: object) -> str:
    return str(text).replace("|", "/").replace("\n", " ").strip()


def shortlist_row(i: int, e: ShortlistEntry, channels: list[str] | None = None) -> str:
    """One table row; with the campaign's `channels`, Contact is the channel it reaches the
    creator on (reach_channel), which the plan then names too."""
    contact = reach_channel(e.contact_channel, channels) if channels else e.contact_channel
    if not e.in_directory:
        cells = [i, e.handle, e.name or "(not in the directory)", "", "", "", "", "", "", "",
                 "", e.reasons]
    else:
        cells = [i, e.handle, e.name, e.platform, e.niche, _k(e.audience_size), e.location,
                 f"{e.engagement_rate:.1f}%", LABELS.get(contact, contact),
                 f"{e.fee_usd:,.0f}", f"{e.match_pct}%" if e.match_pct is not None else "",
                 e.reasons]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def render_shortlist_table(entries: list[ShortlistEntry],
                           channels: list[str] | None = None) -> str:
    head = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS)
    return head + "\n" + "\n".join(shortlist_row(i, e, channels)
                                    for i, e in enumerate(entries, 1))


def parse_shortlist(text: str) -> list[tuple[str, dict[str, str]]]:
    """(handle, the row's cells by column name) for every creator on the shortlist, in order.
    Reads the "## Shortlist" section (the whole text when there is none): table rows, and
    lines or bullets that start with an @handle. Repeats are dropped."""
    section = md.find(md.sections(text, max_level=2), "shortlist")
    body = section.body if section else text
    header: list[str] | None = None
    out: dict[str, dict[str, str]] = {}
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith("|"):
            cells = md.split_row(line)
            if md.is_separator(cells):
                continue
            if header is None and not any(_HANDLE.fullmatch(c) for c in cells):
                header = [c.lower() for c in cells]
                continue
            handle = next((c for c in cells if _HANDLE.fullmatch(c)), None)
            if handle:
                named = dict(zip(header or [], cells, strict=False))
                out.setdefault(norm_handle(handle), named)
            continue
        m = re.match(r"^(?:[-*+]|\d+[.)])?\s*(@[A-Za-z0-9._]*[A-Za-z0-9_])\b(.*)$", line)
        if m:
            why = m.group(2).strip(" -:\u2013\u2014")
            out.setdefault(norm_handle(m.group(1)), {"why": why})
    return list(out.items())


def known_creators(context: dict[str, Any]) -> dict[str, CreatorOut]:
    """The directory entries a step's context carries (Pipeline.review_context), by handle."""
    return {norm_handle(h): CreatorOut.model_validate(c)
            for h, c in (context.get("directory") or {}).items()}


def resolve_shortlist(session: Session, text: str) -> list[ShortlistEntry]:
    """The shortlist in `text` with directory data; unknown handles are kept, marked."""
    return shortlist_entries(text, lookup(session, [h for h, _ in parse_shortlist(text)]))


def shortlist_entries(text: str, known: dict[str, CreatorOut]) -> list[ShortlistEntry]:
    """The shortlist in `text` with the data of the `known` creators; others are marked."""
    parsed = parse_shortlist(text)
    entries = []
    for handle, cells in parsed:
        why = cells.get("why", "")
        match = re.search(r"\d+", cells.get("match", ""))
        c = known.get(handle)
        if c is None:
            entries.append(ShortlistEntry(handle=handle, name=cells.get("name", ""),
                                          reasons=why, in_directory=False))
        else:
            entries.append(ShortlistEntry(**c.model_dump(exclude={"bio"}), reasons=why,
                                          match_pct=int(match.group()) if match else None))
    return entries


def shortlist_from_text(text: str) -> list[ShortlistEntry]:
    """The shortlist in `text` resolved against the directory (for pages, which hold no
    step context)."""
    with session_scope() as s:
        return resolve_shortlist(s, text)


def replace_shortlist(text: str, entries: list[ShortlistEntry],
                      channels: list[str] | None = None) -> str:
    """`text` with the Shortlist section's table replaced by `entries` (the rest unchanged)."""
    table = render_shortlist_table(entries, channels)
    section = md.find(md.sections(text, max_level=2), "shortlist")
    if section is None:
        return text.rstrip() + "\n\n## Shortlist\n\n" + table + "\n"
    head = text[:section.body_start].rstrip("\r\n")
    return (head + "\n\n" + table + "\n\n" + EDIT_HINT + "\n\n"
            + text[section.end:].lstrip())


def change_shortlist(text: str, *, add: list[str], remove: list[str],
                     reason: str = "added by the reviewer",
                     channels: list[str] | None = None) -> str:
    """The draft with creators added (at the end) and removed: a person's choice."""
    with session_scope() as s:
        entries = resolve_shortlist(s, text)
        gone = {norm_handle(h) for h in remove}
        entries = [e for e in entries if e.handle not in gone]
        have = {e.handle for e in entries}
        new = [norm_handle(h) for h in add if norm_handle(h) not in have]
        known = lookup(s, new)
    for h in new:
        c = known.get(h)
        entries.append(ShortlistEntry(**c.model_dump(exclude={"bio"}), reasons=reason)
                       if c else ShortlistEntry(handle=h, name="", reasons=reason,
                                                in_directory=False))
    return replace_shortlist(text, entries, channels)


def as_context(entries: list[ShortlistEntry]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in entries]
