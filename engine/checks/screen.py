"""One entry for `python -m engine screen KIND FILE`: the deterministic floor of a pipeline."""

from __future__ import annotations

from typing import Any

from engine.checks.safety import screen_protocol
from engine.pipelines.registry import get_pipeline


def screen(kind: str, text: str, run_input: dict[str, Any] | None = None) -> dict[str, Any]:
    if kind == "protocol":
        r = screen_protocol(text)
        return {
            "safety_score": r.safety_score,
            "flags": [f.model_dump(include={"category", "text", "start", "end"}) for f in r.flags],
        }
    pipeline = get_pipeline(kind)
    if kind == "campaign":  # any stage's text: outreach is recognised by its structure
        from engine.pipelines.campaign.compliance import campaign_checks

        result = campaign_checks(None)(text, run_input or {})
    else:
        result = pipeline.stages[0].checks(text, run_input or {})
    return {
        "caps": result.caps,
        "flags": [f.model_dump(include={"check", "category", "text", "start", "end"})
                  for f in result.flags],
    }
