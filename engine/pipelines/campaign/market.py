"""A campaign's market: what its region changes in the outreach (data/markets.toml). Where
creators must mark a paid post "Werbung"/"Anzeige" (Germany) or "Publicité" (France), "#ad"
alone does not disclose it; a fee budgeted in US dollars is written "US$" where "$" means
another currency; the drafter is told which spelling the market reads.

The region is the run's own (`region` in its input: Settings, or the place the intake
recorded), else the one the brand's location names, else the default."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.checks import crisis

DATA = Path(__file__).parent / "data" / "markets.toml"


class Market(BaseModel):
    code: str
    name: str
    spelling: str
    money: str
    tag: str
    """The label the drafters write on paid posts here ("#ad", "#Anzeige")."""
    tags: list[str]
    """Any one of these marks a paid post as advertising here."""
    required: list[str] = []
    """When set, one of these must be there: the other tags are not enough by this market's
    law ("#ad" in Germany)."""
    disclosure: str
    """The sentence an outreach message uses to say the posts are marked as paid."""
    rule: str

    def fee(self, usd: float) -> str:
        return f"{self.money}{int(usd):,}"

    def discloses(self, text: str) -> bool:
        return any(_tag(t).search(text) for t in (self.required or self.tags))

    def summary(self) -> str:
        """One line for the drafter's context and the Run page."""
        return (f"{self.name}: paid posts marked {self.tag} ({self.rule}); fees written "
                f"{self.money} (US dollars); {self.spelling} spelling")


@cache
def _tag(tag: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w#]){re.escape(tag)}(?![\w-])", re.I)


@cache
def markets() -> dict[str, Market]:
    raw: dict[str, Any] = tomllib.loads(DATA.read_text(encoding="utf-8"))
    out = {}
    for code, entry in raw["markets"].items():
        if not crisis.known(code):
            raise ValueError(f"{DATA.name}: market {code!r} is no region code "
                             f"({', '.join(crisis.regions())})")
        try:
            out[code] = Market(code=code, name=crisis.region(code).name, **entry)
        except ValidationError as exc:
            raise ValueError(f"{DATA.name}: market {code!r} is invalid: {exc}") from exc
    if raw["default"] not in out:
        raise ValueError(f"{DATA.name}: the default market {raw['default']!r} is not defined")
    out[""] = out[raw["default"]]
    return out


def region_of_place(place: str) -> str | None:
    """The region code a place names ("Leeds, UK" -> uk), or None."""
    return crisis.infer(place) if place else None


def market_for(run_input: dict[str, Any], brand: Any = None) -> Market:
    """The campaign's market: its run's region, else its brand's location's, else the
    default. `brand`: a BrandOut or its dict (a step's context), or None."""
    code = run_input.get("region")
    if not (isinstance(code, str) and code in markets()):
        location = (brand.get("location") if isinstance(brand, dict)
                    else getattr(brand, "location", "")) or ""
        code = region_of_place(str(location)) or ""
    return markets().get(code, markets()[""])


def fallback_reason(run_input: dict[str, Any], brand: Any = None) -> str | None:
    """Why the campaign runs under the default market when it does for want of its own (a
    brand in a country with no market rules here), else None: a reviewer must not read the
    default's rules as chosen for this brand."""
    code = run_input.get("region")
    if isinstance(code, str) and code in markets():
        return None
    location = str((brand.get("location") if isinstance(brand, dict)
                    else getattr(brand, "location", "")) or "")
    if not location.strip() or region_of_place(location):
        return None
    place = location.rsplit(",", 1)[-1].strip()
    return (f"the default, as Draftroom has no market rules for {place}; set the campaign's "
            "region if another market's apply")


def market_summary(run_input: dict[str, Any], brand: Any = None) -> str:
    """The market's one line with why it is the default when it is for want of the brand's
    own: for the drafter's context (a real model must not read the US rules as chosen for an
    Israeli brand either), the Run page and `python -m engine show`."""
    why = fallback_reason(run_input, brand)
    return market_for(run_input, brand).summary() + (f" ({why})" if why else "")


def market_line(run_input: dict[str, Any]) -> str:
    """"market: Germany (...)" for a campaign run, its brand read from the database; says so
    when that is the default for want of the brand's own market."""
    from db.session import session_scope
    from engine.pipelines.campaign.brands import load_brand

    with session_scope() as s:
        brand = load_brand(s, run_input.get("brand_id"))
    return f"market: {market_summary(run_input, brand)}"
