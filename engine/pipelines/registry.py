"""Every pipeline by kind."""

from __future__ import annotations

from engine.pipelines.base import Pipeline
from engine.pipelines.campaign.spec import CAMPAIGN
from engine.pipelines.protocol.spec import PROTOCOL

PIPELINES: dict[str, Pipeline] = {PROTOCOL.kind: PROTOCOL, CAMPAIGN.kind: CAMPAIGN}


def get_pipeline(kind: str) -> Pipeline:
    try:
        return PIPELINES[kind]
    except KeyError:
        known = ", ".join(sorted(PIPELINES))
        raise ValueError(f"unknown kind {kind!r}; known kinds: {known}") from None
