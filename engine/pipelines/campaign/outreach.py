"""The OUTREACH draft as data: one message per creator and channel, written as Markdown
that a person can edit and that parses back deterministically.

    # Outreach messages: Alma Cafe

    Shortlist: @maya.brews, @tlv.foodwalks

    ## @maya.brews · Maya Levi

    ### Email

    Subject: Coffee with Alma Cafe?

    Hi Maya, ...

    ### SMS

    Hi Maya, ...
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from engine import markdown as md
from engine.pipelines.campaign.channels import (
    CHANNELS,
    LABELS,
    FormattedMessage,
    channel_of,
    format_message,
)

_HANDLE = re.compile(r"@[A-Za-z0-9._]*[A-Za-z0-9_]")
_SUBJECT = re.compile(r"^[ \t]*(subject|title)[ \t]*:[ \t]*(.*?)[ \t]*$", re.I)


class Message(BaseModel):
    """One parsed message, with where its body sits in the draft (for flags)."""

    handle: str
    name: str
    channel: str
    subject: str | None
    body: str
    start: int
    end: int

    def formatted(self, brand_name: str = "") -> FormattedMessage:
        title = self.subject or (f"{brand_name} x {self.name or self.handle}" if brand_name
                                 else None)
        return format_message(self.channel, self.body, subject=self.subject, title=title)


class Outreach(BaseModel):
    shortlist: list[str]
    """Handles on the "Shortlist:" line: the creators the messages must cover."""
    messages: list[Message]
    unknown_channels: list[str]
    """### headings that name no channel."""

    def creators(self) -> list[tuple[str, str]]:
        seen: dict[str, str] = {}
        for m in self.messages:
            seen.setdefault(m.handle, m.name)
        return list(seen.items())

    def missing(self, channels: list[str]) -> list[tuple[str, str]]:
        """(creator, channel) of the campaign's channels with no message for that creator,
        except where the creator was moved: a message on a channel outside the campaign's
        ("Maya by Instagram DM instead of SMS") stands for one of theirs that is gone."""
        out = []
        for handle in self.shortlist or [h for h, _ in self.creators()]:
            absent = [c for c in channels if self.get(handle, c) is None]
            moved = sum(m.handle == handle and m.channel not in channels for m in self.messages)
            out += [(handle, c) for c in absent[moved:]]
        return out

    def get(self, handle: str, channel: str) -> Message | None:
        return next((m for m in self.messages if m.handle == handle and m.channel == channel),
                    None)


def looks_like_outreach(text: str) -> bool:
    levels = [(s.level, s.title) for s in md.sections(text, max_level=3)]
    return any(lv == 2 and t.startswith("@") for lv, t in levels) and any(
        lv == 3 for lv, _ in levels)


def parse_outreach(text: str) -> Outreach:
    shortlist: list[str] = []
    m = re.search(r"^[ \t]*shortlist[ \t]*:(.*)$", text, re.I | re.M)
    if m:
        shortlist = [h.lower() for h in _HANDLE.findall(m.group(1))]
    messages: list[Message] = []
    unknown: list[str] = []
    handle = name = ""
    channel: str | None = None
    start = 0

    def close(end: int) -> None:
        if channel is None or not handle:
            return
        chunk = text[start:end]
        subject = None
        body_start = start
        first = re.match(r"\s*", chunk)
        lead = first.end() if first else 0
        line_end = chunk.find("\n", lead)
        line_end = len(chunk) if line_end < 0 else line_end
        sm = _SUBJECT.match(chunk[lead:line_end])
        if sm:
            subject = sm.group(2) or None
            body_start = start + line_end
        body = text[body_start:end]
        stripped = body.strip()
        offset = body_start + (body.find(stripped) if stripped else 0)
        messages.append(Message(handle=handle, name=name, channel=channel, subject=subject,
                                body=stripped, start=offset, end=offset + len(stripped)))

    for sec in md.sections(text, max_level=3):
        if sec.level in (2, 3):
            close(sec.start)
            if sec.level == 2:
                heading = sec.title.strip()
                hm = _HANDLE.search(heading)
                handle = hm.group().lower() if hm else ""
                rest = heading[hm.end():] if hm else ""
                name = re.sub(r"^[\s·\-\u2013\u2014:|]+", "", rest).strip()
                channel = None
            else:
                label = sec.title.strip()
                channel = channel_of(label)
                if channel is None:
                    unknown.append(label)
            start = sec.body_start
    close(len(text))
    return Outreach(shortlist=shortlist, messages=messages, unknown_channels=unknown)


def render_outreach(*, brand_name: str, shortlist: list[str],
                    messages: list[tuple[str, str, str, str | None, str]],
                    channels: list[str] | None = None) -> str:
    """Markdown from (handle, name, channel, subject, body) tuples, grouped by creator in
    shortlist order, channels in the campaign's order."""
    order = channels or list(CHANNELS)
    by_creator: dict[str, list[tuple[str, str, str, str | None, str]]] = {}
    for m in messages:
        by_creator.setdefault(m[0].lower(), []).append(m)
    handles = [h.lower() for h in shortlist] + [h for h in by_creator if h not in
                                                 [x.lower() for x in shortlist]]
    out = [f"# Outreach messages: {brand_name}", "",
           f"Shortlist: {', '.join(h.lower() for h in shortlist)}", ""]
    for h in handles:
        msgs = by_creator.get(h, [])
        name = msgs[0][1] if msgs else ""
        out += [f"## {h} · {name}".rstrip(" ·"), ""]
        rank = {c: i for i, c in enumerate(order)}
        for _, _, channel, subject, body in sorted(msgs, key=lambda m: rank.get(m[2], 99)):
            out += [f"### {LABELS.get(channel, channel)}", ""]
            if subject:
                out += [f"{'Title' if channel == 'teams' else 'Subject'}: {subject.strip()}", ""]
            out += [body.strip(), ""]
    return "\n".join(out).rstrip() + "\n"
