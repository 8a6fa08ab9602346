"""A protocol draft as sections (title, purpose, steps, reflection, safety note, and what a
person added), parsed from its Markdown tolerantly and rendered back: what the offline
Drafter revises and the offline critics read."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import markdown as md
from engine.llm.offline.protocol.common import _norm, _sentences
from engine.pipelines.protocol.models import ProtocolDraft
from engine.pipelines.protocol.text import render_protocol

_SECTION_ALIASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("safety", ("safety", "crisis", "getting help", "get help", "need help", "support",
                "important", "urgent help")),
    ("reflection", ("reflect", "question", "afterwards", "journal prompt", "review")),
    ("steps", ("step", "instruction", "how to", "what to do", "method", "procedure",
               "exercise")),
    ("purpose", ("purpose", "why", "about", "overview", "introduction", "aim", "goal",
                 "background", "what this is")),
)


@dataclass
class _Doc:
    title: str = ""
    purpose: str = ""
    steps: list[str] = field(default_factory=list)
    reflection: list[str] = field(default_factory=list)
    safety: str = ""
    lead: list[str] = field(default_factory=list)
    """Paragraphs outside any known section (e.g. a draft edited into one paragraph)."""
    extras_before: list[tuple[str, str]] = field(default_factory=list)
    extras_after: list[tuple[str, str]] = field(default_factory=list)
    """Sections a person added that the schema has no field for: kept, in place."""
    found: set[str] = field(default_factory=set)
    loose_steps: list[str] = field(default_factory=list)
    """Numbered items found outside a Steps section."""
    bulleted_steps: bool = False

    def all_text(self) -> str:
        parts = [self.title, *self.lead, self.purpose, *self.steps, *self.reflection,
                 self.safety]
        parts += [b for _, b in self.extras_before + self.extras_after]
        return "\n".join(p for p in parts if p)


_BARE_SECTIONS = {"purpose", "steps", "instructions", "reflection", "reflection questions",
                  "questions", "safety", "safety note"}


def _canonical(heading: str) -> str | None:
    low = heading.lower()
    for name, aliases in _SECTION_ALIASES:
        if any(a in low for a in aliases):
            return name
    return None



def _paragraphs(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def parse_protocol(text: str) -> _Doc:
    """Split protocol Markdown into its sections; tolerant of human edits."""
    doc = _Doc()
    blocks: list[tuple[str | None, str, list[str]]] = []
    for sec in md.sections(text.replace("\r\n", "\n").replace("\r", "\n"), max_level=2):
        name = sec.title.strip()
        if sec.level == 0:
            blocks.append(("lead", "", sec.lines))
        elif sec.level == 1 and not doc.title and _norm(name) not in _BARE_SECTIONS:
            doc.title = name  # the title's own lines belong to the section above it
            doc.found.add("title")
            blocks[-1][2].extend(sec.lines)
        else:
            blocks.append((_canonical(name), name, sec.lines))

    seen_steps = False
    for canon, heading, lines in blocks:
        if canon == "lead":
            numbered = [m.group(2).strip() for ln in lines if (m := md.NUMBERED.match(ln))]
            doc.loose_steps += numbered
            doc.lead += [p for p in md.paragraphs(lines) if p]
            continue
        if canon is None:
            body = _paragraphs(lines)
            (doc.extras_after if seen_steps else doc.extras_before).append((heading, body))
            doc.loose_steps += [m.group(2).strip() for ln in lines
                                if (m := md.NUMBERED.match(ln))]
            continue
        doc.found.add(canon)
        if canon == "purpose":
            body = _paragraphs(lines)
            doc.purpose = (doc.purpose + "\n\n" + body).strip() if doc.purpose else body
        elif canon == "safety":
            body = _paragraphs(lines)
            doc.safety = (doc.safety + "\n\n" + body).strip() if doc.safety else body
        elif canon == "steps":
            seen_steps = True
            items, paras, _, bulleted = md.list_items(lines)
            doc.steps += items
            doc.bulleted_steps |= bulleted
            if paras:
                intro = "\n\n".join(paras)
                doc.purpose = (doc.purpose + "\n\n" + intro).strip()
        elif canon == "reflection":
            seen_steps = True
            items, paras, _, _ = md.list_items(lines)
            for p in paras:
                items += _sentences(p)
            doc.reflection += items
    return doc



def _render_extras(extras: list[tuple[str, str]]) -> str:
    return "".join(f"\n\n## {h}\n\n{b}" if b else f"\n\n## {h}" for h, b in extras)


def _to_draft(doc: _Doc) -> ProtocolDraft:
    from engine.pipelines.protocol.models import ProtocolDraft

    return ProtocolDraft(
        title=doc.title,
        purpose=(doc.purpose + _render_extras(doc.extras_before)).strip(),
        steps=doc.steps,
        reflection=doc.reflection,
        safety_note=(doc.safety + _render_extras(doc.extras_after)).strip(),
    )


def _render(doc: _Doc) -> str:

    return render_protocol(_to_draft(doc))
