"""Which prompt text an agent uses: a per-run override, else the active version in the
database, else the default in code. The version used is recorded on every LLMCall."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from db.models import PromptVersion


@dataclass(frozen=True)
class ResolvedPrompt:
    text: str
    version: int | None  # None: the default in code (or a per-run override)
    source: str  # "run" | "database" | "code"


def resolve_prompt(
    session: Session, *, agent: str, default: str, params: dict[str, Any]
) -> ResolvedPrompt:
    override = (params.get("prompts") or {}).get(agent)
    if isinstance(override, str) and override.strip():
        return ResolvedPrompt(override, None, "run")
    if isinstance(override, int):
        row = session.exec(
            select(PromptVersion).where(
                PromptVersion.agent == agent, PromptVersion.version == override
            )
        ).first()
        if row is not None:
            return ResolvedPrompt(row.text, row.version, "run")
    active = session.exec(
        select(PromptVersion).where(PromptVersion.agent == agent, PromptVersion.active == True)  # noqa: E712
    ).first()
    if active is not None:
        return ResolvedPrompt(active.text, active.version, "database")
    return ResolvedPrompt(default, None, "code")
