"""One entry for `python -m engine screen KIND FILE`: the deterministic floor of a pipeline."""

from __future__ import annotations

from typing import Any

from db.session import session_scope
from engine.checks.safety import screen_protocol
from engine.pipelines.campaign.compliance import campaign_checks
from engine.pipelines.registry import get_pipeline


def screen(kind: str, text: str, run_input: dict[str, Any] | None = None) -> dict[str, Any]:
    if kind == "protocol":
        r = screen_protocol(text)
        return {
            "safety_score": r.safety_score,
            "flags": [f.model_dump(include={"category", "text", "start", "end"}) for f in r.flags],
        }
    pipeline = get_pipeline(kind)
    run_input = run_input or {}
    with session_scope() as s:  # the brand's banned lists, as a run's step would be given
        context = pipeline.context_for_review(s, run_input, pipeline.stages[0].name)
    if kind == "campaign":  # any stage's text: outreach is recognised by its structure
        result = campaign_checks(None)(text, run_input, context)
    else:
        result = pipeline.stages[0].checks(text, run_input, context)
    return {
        "caps": result.caps,
        "flags": [f.model_dump(include={"check", "category", "text", "start", "end"})
                  for f in result.flags],
    }
