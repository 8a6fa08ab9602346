"""Brand profiles: the business card (name, website, social links, location, service type)
plus voice, audience, products and the words and claims the brand avoids.

Sample brands ship as data (engine/data/brands.json) and are loaded on first use."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError
from sqlmodel import Session, col, func, select

from db.models import Brand, utcnow
from db.session import session_scope
from engine.errors import InvalidInput, NotFound
from engine.text import clean_text
from engine.validation import parse_input

DATA = Path(__file__).parent / "data" / "brands.json"
MAX_ITEMS = 50
_HANDLE = re.compile(r"^@[A-Za-z0-9._]{1,60}$")
_HOST = re.compile(r"^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$")


def normalise_url(value: str) -> str:
    """A full web address, or an error that says what a good one looks like. A bare domain
    ("almacafe.co.il") gets https:// in front; anything else malformed is refused."""
    v = value.strip()
    if not re.match(r"^[a-z][a-z0-9+.-]*://", v, re.I):
        v = "https://" + v
    parts = urlsplit(v)
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or " " in v or not _HOST.match(host):
        raise PydanticCustomError(
            "url", "must be a web address such as https://example.com (got {value})",
            {"value": repr(value.strip()[:80])})
    return v


def _as_list(v: object) -> object:
    """Form fields send one item per line (or comma-separated); keep order, drop repeats."""
    if isinstance(v, str):
        v = re.split(r"[\n,;]", v)
    if not isinstance(v, list):
        return v
    seen: set[str] = set()
    out: list[str] = []
    for item in v:
        text = clean_text(str(item))
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


class BrandIn(BaseModel):
    """What a person fills in to create or edit a brand."""

    name: str = Field(min_length=1, max_length=120)
    website: str = Field(default="", max_length=300)
    """Optional; when given, a full web address."""
    social_links: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Profile URLs or @handles."""
    location: str = Field(default="", max_length=200)
    service_type: str = Field(default="", max_length=200)
    """What the business is, e.g. "Coffee shop"."""
    voice: str = Field(default="", max_length=2000)
    """How the brand sounds, e.g. "warm, neighbourly, a little playful"."""
    audience: str = Field(default="", max_length=1000)
    products: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    avoid_words: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Words the brand never uses."""
    avoid_claims: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Claims the brand must not make (legal, medical, unprovable)."""

    @field_validator("name", "website", "location", "service_type", "voice", "audience",
                     mode="before")
    @classmethod
    def _clean(cls, v: object) -> object:
        return clean_text(v) if isinstance(v, str) else v

    @field_validator("social_links", "products", "avoid_words", "avoid_claims", mode="before")
    @classmethod
    def _lists(cls, v: object) -> object:
        return _as_list(v)

    @field_validator("products", "avoid_words", "avoid_claims")
    @classmethod
    def _short_items(cls, v: list[str]) -> list[str]:
        for item in v:
            if len(item) > 200:
                raise PydanticCustomError("too_long", "each item must be at most 200 characters")
        return v

    @field_validator("website")
    @classmethod
    def _website(cls, v: str) -> str:
        return normalise_url(v) if v else v

    @field_validator("social_links")
    @classmethod
    def _links(cls, v: list[str]) -> list[str]:
        out = []
        for i, item in enumerate(v, 1):
            if _HANDLE.match(item):
                out.append(item)
                continue
            try:
                out.append(normalise_url(item))
            except PydanticCustomError:
                raise PydanticCustomError(
                    "social_link", "line {line} ({value}) is neither a web address nor an "
                    "@handle", {"line": i, "value": repr(item[:80])}) from None
        return out


class BrandOut(BrandIn):
    id: int
    slug: str
    sample: bool
    created_at: datetime
    updated_at: datetime


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:100] or "brand"


def _out(b: Brand) -> BrandOut:
    return BrandOut.model_validate(b, from_attributes=True)


def ensure_samples(session: Session) -> None:
    """Load the sample brands the first time the table is used (empty)."""
    if session.exec(select(func.count()).select_from(Brand)).one():
        return
    for item in json.loads(DATA.read_text(encoding="utf-8")):
        data = BrandIn.model_validate(item)
        session.add(Brand(**data.model_dump(), slug=slugify(data.name), sample=True,
                          created_by="sample data"))
    session.flush()


def _parse(data: BrandIn | dict[str, Any]) -> BrandIn:
    return data if isinstance(data, BrandIn) else parse_input(BrandIn, data)


def _name_taken(session: Session, name: str, except_id: int | None = None) -> bool:
    q = select(Brand.id).where(func.lower(Brand.name) == name.lower())
    if except_id is not None:
        q = q.where(Brand.id != except_id)
    return session.exec(q).first() is not None


def _unique_slug(session: Session, name: str) -> str:
    base = slugify(name)
    slug, n = base, 2
    while session.exec(select(Brand.id).where(Brand.slug == slug)).first() is not None:
        slug, n = f"{base}-{n}", n + 1
    return slug


def list_brands() -> list[BrandOut]:
    with session_scope() as s:
        ensure_samples(s)
        return [_out(b) for b in s.exec(select(Brand).order_by(col(Brand.name)))]


def load_brand(session: Session, brand_id: int | None) -> BrandOut | None:
    """The brand in an open session, or None (callers that can do without one)."""
    ensure_samples(session)
    b = session.get(Brand, brand_id) if brand_id else None
    return _out(b) if b else None


def get_brand(brand_id: int) -> BrandOut:
    with session_scope() as s:
        b = load_brand(s, brand_id)
    if b is None:
        raise NotFound(f"Brand {brand_id} does not exist.")
    return b


def check_brand(campaign: Any, session: Session | None = None) -> None:
    """A campaign names a brand that exists: without it every draft and check would run on a
    name alone (brand 999 once gave a brief titled "Why Nope: our products"). With `session`,
    a brand created earlier in that same transaction counts (the intake's confirmation)."""
    if session is None:
        with session_scope() as s:
            return check_brand(campaign, s)
    brand = load_brand(session, campaign.brand_id)
    known = ", ".join(f"{b.id} {b.name}" for b in session.exec(
        select(Brand).order_by(col(Brand.id)).limit(10))) if brand is None else ""
    if brand is None:
        raise InvalidInput(
            f"There is no brand with id {campaign.brand_id} (brands: {known or 'none yet'}). "
            "Create it on the Brands page, or plan the campaign in conversation with "
            "`python -m engine intake`.", {"brand_id": "no brand has this id"})


def create_brand(*, data: BrandIn | dict[str, Any], actor: str = "",
                 session: Session | None = None) -> BrandOut:
    """Validate and save a new brand; InvalidInput names each bad field. With `session` the
    brand is written in the caller's transaction (committed or rolled back with the rest of
    it: the intake saves a brand, its campaign and the confirming turn as one)."""
    brand = _parse(data)
    if session is None:
        with session_scope() as s:
            return create_brand(data=brand, actor=actor, session=s)
    ensure_samples(session)
    if _name_taken(session, brand.name):
        raise InvalidInput(f"A brand called {brand.name!r} exists already.",
                           {"name": "is already used by another brand"})
    row = Brand(**brand.model_dump(), slug=_unique_slug(session, brand.name),
                created_by=clean_text(actor)[:120])
    session.add(row)
    session.flush()
    return _out(row)


def update_brand(*, brand_id: int, data: BrandIn | dict[str, Any]) -> BrandOut:
    """Replace a brand's fields. Campaigns read the brand when they run, so an edit
    applies to every later draft and check of its campaigns."""
    brand = _parse(data)
    with session_scope() as s:
        row = s.get(Brand, brand_id)
        if row is None:
            raise NotFound(f"Brand {brand_id} does not exist.")
        if _name_taken(s, brand.name, except_id=brand_id):
            raise InvalidInput(f"A brand called {brand.name!r} exists already.",
                               {"name": "is already used by another brand"})
        for key, value in brand.model_dump().items():
            setattr(row, key, value)
        row.updated_at = utcnow()
        s.add(row)
        s.flush()
        return _out(row)
