"""Clinical harm: medication changes, diagnoses and risky advice lower clinical quality too,
not only safety. The safety screen finds them (engine/checks/safety.py); this maps its flags'
categories to a cap on the clinical score (data: coverage.toml [clinical_harm]). Pure."""

from __future__ import annotations

from collections.abc import Iterable

from engine.checks.base import FlagOut
from engine.checks.findings import Finding, finding
from engine.checks.terms import data

CHECK = "clinical_harm"


def clinical_findings(flags: Iterable[FlagOut]) -> list[Finding]:
    """One finding per harmful flag, capping the clinical score by the category's limit."""
    limits: dict[str, float] = data()["clinical_harm"]
    out = []
    for f in flags:
        cap = limits.get(f.category)
        if cap is None or not f.blocking:
            continue
        out.append(finding(
            CHECK, "protocol", "clinical_harm", f.text,
            f"Clinically unsound ({f.category.replace('_', ' ')}): a self-help exercise must "
            f"not give this advice; remove it and point the reader to their clinician.",
            cap=cap).model_copy(update={"start": f.start, "end": f.end}))
    return out


__all__ = ["clinical_findings"]
