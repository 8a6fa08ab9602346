"""A protocol draft as Markdown: how the Drafter's output is rendered for a person to read
and edit."""

from __future__ import annotations

from engine.pipelines.protocol.models import ProtocolDraft


def render_protocol(d: ProtocolDraft) -> str:
    steps = "\n".join(f"{i}. {s.strip()}" for i, s in enumerate(d.steps, 1))
    reflection = "\n".join(f"- {q.strip()}" for q in d.reflection)
    return (
        f"# {d.title.strip()}\n\n## Purpose\n\n{d.purpose.strip()}\n\n## Steps\n\n{steps}\n\n"
        f"## Reflection\n\n{reflection}\n\n## Safety note\n\n{d.safety_note.strip()}\n"
    )
