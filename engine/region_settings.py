"""Which region's crisis resources runs use (engine/checks/crisis.py), set on the Settings page:
the clinic's default (protocol runs, and brands without their own) and each brand's own
(campaign runs). Stored in the Setting table beside the budgets (engine/ops_settings.py);
service.start_run writes the region into a run's input, so a run keeps the lines it was
written with when the setting changes later."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from sqlalchemy.engine import Connection
from sqlmodel import Session

from db.models import Brand, Setting, utcnow
from db.session import get_engine, session_scope
from engine.checks.crisis import checked_region
from engine.errors import InvalidInput, NotFound
from engine.identity import require
from engine.ops_settings import _actor, _read

CLINIC_KEY = "region.clinic"
BRAND_KEY = "region.brand."


class RegionSettings(BaseModel):
    clinic: str | None
    """The clinic's default region; None: each request's own (a region it names) or US."""
    brands: dict[int, str]
    """Brand id -> its region, for brands that have their own."""


def get_region_settings(session: Session | Connection | None = None) -> RegionSettings:
    if session is None:  # a plain connection: one read, where an ORM session cost more
        with get_engine().connect() as c:
            return get_region_settings(c)
    values = _read(session)
    brands = {int(k.removeprefix(BRAND_KEY)): str(v) for k, v in values.items()
              if k.startswith(BRAND_KEY) and k.removeprefix(BRAND_KEY).isdigit() and v}
    clinic = values.get(CLINIC_KEY)
    return RegionSettings(clinic=str(clinic) if clinic else None, brands=brands)


def region_for_run(kind: str, run_input: dict[str, Any],
                   session: Session | Connection | None = None) -> str | None:
    """The region a new run takes when its starter named none: a campaign its brand's (else
    the clinic's), anything else the clinic's; None when nothing is set."""
    settings = get_region_settings(session)
    if kind == "campaign":
        brand = run_input.get("brand_id")
        if isinstance(brand, int) and brand in settings.brands:
            return settings.brands[brand]
    return settings.clinic


def _code(code: str | None) -> str | None:
    try:
        return checked_region(code)
    except ValueError as exc:
        raise InvalidInput(str(exc), {"region": "unknown"}) from None


def _write(key: str, code: str | None, actor: str) -> None:
    with session_scope() as s:
        row = s.get(Setting, key) or Setting(key=key)
        row.value = json.dumps(code)
        row.updated_by = actor
        row.updated_at = utcnow()
        s.add(row)


def set_clinic_region(*, code: str | None, actor: str) -> None:
    """The clinic's default region (a clinician or an admin; anyone while no role is set).
    None clears it."""
    who = _actor(actor)
    value = _code(code)
    with session_scope() as s:
        require(who, "prompts", "protocol", session=s)
    _write(CLINIC_KEY, value, who)


def set_brand_region(*, brand_id: int, code: str | None, actor: str) -> None:
    """A brand's own region (a marketer or an admin); None: the brand follows the clinic's."""
    who = _actor(actor)
    value = _code(code)
    with session_scope() as s:
        require(who, "prompts", "campaign", session=s)
        if s.get(Brand, brand_id) is None:
            raise NotFound(f"Brand {brand_id} does not exist.")
    _write(BRAND_KEY + str(brand_id), value, who)
