"""Crisis resources per region (data: engine/checks/data/crisis_regions.toml): the lines a
protocol's safety note gives (offline drafter, the real model's prompt) and the check that a
draft names one for the reader's region. A run's region is in its input (`region`): the one
its starter chose, else the clinic's default from Settings (engine/ops_settings.py), else a
region the request names ("NHS", "Australia"), else the data file's default (US)."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

DATA = Path(__file__).with_name("data") / "crisis_regions.toml"


class CrisisLine(BaseModel):
    name: str = Field(min_length=2)
    contact: str = Field(min_length=3)
    """How to reach it, as a sentence fragment ("call or text 988")."""
    numbers: list[str] = Field(min_length=1)
    """The numbers as people write them ("116 123"); matched with any spacing or dashes."""


class Region(BaseModel):
    code: str
    name: str
    emergency: str
    lines: list[CrisisLine] = Field(min_length=1)
    note: list[str] = Field(min_length=1)
    """Safety-note sentences, the fullest first; each names a line of this region."""
    markers: list[str] = []
    veterans: str | None = None

    def label(self) -> str:
        return f"{self.name} ({self.code.upper()})"

    def summary(self) -> str:
        """One line for a prompt or a page: the emergency number and every crisis line."""
        lines = "; ".join(f"{line.name}: {line.contact}" for line in self.lines)
        return f"{self.name}: emergency {self.emergency}; {lines}"


class CrisisData(BaseModel):
    default: str
    regions: dict[str, Region]
    generic: list[str]


@cache
def data() -> CrisisData:
    raw: dict[str, Any] = tomllib.loads(DATA.read_text(encoding="utf-8"))
    regions = {}
    for code, entry in raw.get("regions", {}).items():
        try:
            regions[code] = Region(code=code, **entry)
        except ValidationError as exc:  # name the broken entry, not just the field
            raise ValueError(f"{DATA.name}: region {code!r} is invalid: {exc}") from exc
    out = CrisisData(default=raw["default"], regions=regions,
                     generic=raw["generic"]["phrases"])
    if out.default not in regions:
        raise ValueError(f"{DATA.name}: default region {out.default!r} is not defined")
    for r in regions.values():
        if not any(mentions_line(sentence, r) for sentence in r.note):
            raise ValueError(f"{DATA.name}: region {r.code!r}: a note names none of its lines")
    return out


def regions() -> dict[str, Region]:
    return data().regions


def region(code: str | None) -> Region:
    """The region for a code; the default for None or a code this data does not define."""
    all_ = data().regions
    return all_.get((code or "").lower()) or all_[data().default]


def known(code: str) -> bool:
    return code.lower() in data().regions


def checked_region(code: str | None) -> str | None:
    """A run input's region, lower-cased; a code this data does not define is refused (a
    validator's ValueError: the service names the field and the codes it takes)."""
    if code is None or not str(code).strip():
        return None
    c = str(code).strip().lower()
    if c not in data().regions:
        raise ValueError(f"unknown region {c[:20]!r}; regions: {', '.join(data().regions)}")
    return c


def infer(text: str) -> str | None:
    """A region the request names (its markers), or None."""
    low = f" {' '.join(text.lower().split())} "
    for code, r in data().regions.items():
        if any(m in low for m in r.markers):
            return code
    return None


def region_of(run_input: dict[str, Any]) -> Region:
    """The region a run writes for: its own, else one its request names, else the default."""
    code = run_input.get("region")
    if isinstance(code, str) and known(code):
        return region(code)
    said = " ".join(str(run_input.get(k) or "") for k in ("intent", "audience", "goal"))
    return region(infer(said))


@cache
def _number_pattern(number: str) -> re.Pattern[str]:
    # "116 123" matches "116123", "116-123" and "116 123", but not inside a longer number
    # ("000" is not the end of "1,000").
    digits = [re.escape(d) for d in re.sub(r"\D", "", number)]
    return re.compile(r"(?<![\d,.])" + r"[\s\-.]?".join(digits) + r"(?!\d)")


def mentions_line(text: str, r: Region) -> bool:
    """The text names one of the region's crisis lines (by number or name) or its emergency
    number."""
    low = text.lower()
    numbers = [n for line in r.lines for n in line.numbers] + re.findall(r"\d+", r.emergency)
    if any(_number_pattern(n).search(text) for n in numbers):
        return True
    return any(line.name.lower() in low for line in r.lines if len(line.name) > 8)


def mentions_resource(text: str, r: Region) -> bool:
    """The text names a crisis resource a reader in `r` can use: one of its lines, its
    emergency number, or a generic one ("emergency services", "crisis line")."""
    low = " " + " ".join(text.lower().split()) + " "
    return mentions_line(text, r) or any(p in low for p in data().generic)


def foreign_lines(text: str, r: Region) -> list[str]:
    """Crisis lines of other regions the text names that `r`'s reader cannot call (e.g. 988
    in a note for the UK): a line shared with `r` (116 123 in the UK and Ireland) is fine."""
    own = {re.sub(r"\D", "", n) for line in r.lines for n in line.numbers}
    own |= set(re.findall(r"\d+", r.emergency))
    out: dict[str, str] = {}
    for other in data().regions.values():
        for line in other.lines:
            for n in line.numbers:
                key = re.sub(r"\D", "", n)
                if key not in own and key not in out and _number_pattern(n).search(text):
                    out[key] = n
    return list(out.values())


def crisis_resources_line(run_input: dict[str, Any]) -> str:
    """The line a model's task carries (drafter and Safety Guardian): the reader's region and
    its crisis resources, to give in (and to expect in) the safety note."""
    return f"Crisis resources for the reader's region ({region_of(run_input).summary()})"
