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


TEAM_SECTIONS = ("open points",)
"""Sections written for the clinician, not the reader: the drafter lists there what it could
not settle (a comment it could not apply). Exports for the reader leave them out."""


def for_reader(text: str) -> str:
    """The draft without the sections meant for the team (engine.markdown's sections)."""
    from engine.markdown import sections  # the text module stays import-light for the specs

    kept = [text[s.start:s.end] for s in sections(text)
            if not (s.level == 2 and s.title.strip().lower() in TEAM_SECTIONS)]
    return "".join(kept).rstrip() + "\n"
