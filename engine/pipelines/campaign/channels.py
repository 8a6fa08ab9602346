"""How one message looks on each channel: SMS, email, WhatsApp, Teams, Instagram DM.

Deterministic and pure. Message bodies are written in Markdown; each channel gets its own
form of it (plain text, WhatsApp's light markup, a titled card). The Run page, the exports
and the compliance check's channel rules all go through `format_message`."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

Channel = Literal["sms", "email", "whatsapp", "teams", "instagram_dm"]
CHANNELS: tuple[str, ...] = ("sms", "email", "whatsapp", "teams", "instagram_dm")


class ChannelSpec(BaseModel):
    channel: str
    label: str
    max_length: int | None
    """Characters in the whole message as sent; None: no practical limit."""
    part_length: int | None
    """Characters per part, marker included (SMS segments); None: sent whole."""
    markup: Literal["plain", "markdown", "whatsapp", "card"]
    needs_subject: bool


# Limits as the platforms publish them: Twilio refuses SMS bodies over 1,600 characters and
# a single SMS segment is 160; the WhatsApp Business API takes text bodies up to 4,096;
# Instagram DMs stop at 1,000.
SPECS: dict[str, ChannelSpec] = {
    "sms": ChannelSpec(channel="sms", label="SMS", max_length=1600, part_length=160,
                       markup="plain", needs_subject=False),
    "email": ChannelSpec(channel="email", label="Email", max_length=None, part_length=None,
                         markup="markdown", needs_subject=True),
    "whatsapp": ChannelSpec(channel="whatsapp", label="WhatsApp", max_length=4096,
                            part_length=None, markup="whatsapp", needs_subject=False),
    "teams": ChannelSpec(channel="teams", label="Teams", max_length=20_000, part_length=None,
                         markup="card", needs_subject=False),
    "instagram_dm": ChannelSpec(channel="instagram_dm", label="Instagram DM", max_length=1000,
                                part_length=None, markup="plain", needs_subject=False),
}
LABELS: dict[str, str] = {k: s.label for k, s in SPECS.items()}


def channel_of(label: str) -> str | None:
    """"Instagram DM", "instagram_dm", "instagram" -> "instagram_dm"; None if unknown."""
    key = re.sub(r"[^a-z]+", "_", label.strip().lower()).strip("_")
    if key in SPECS:
        return key
    for k, spec in SPECS.items():
        if key == re.sub(r"[^a-z]+", "_", spec.label.lower()).strip("_") or k.startswith(key + "_"):
            return k
    return None


class MessagePart(BaseModel):
    sequence: int
    total: int
    content: str
    indicator: str | None
    """"(1/3)" when the message is sent in parts."""

    @property
    def text(self) -> str:
        return f"{self.content} {self.indicator}" if self.indicator else self.content


class CardSection(BaseModel):
    heading: str | None
    text: str


class FormattedMessage(BaseModel):
    channel: str
    label: str
    subject: str | None
    """Email subject line."""
    title: str | None
    """Teams card title."""
    text: str
    """The message as the recipient gets it (parts joined by blank lines for SMS)."""
    parts: list[MessagePart]
    sections: list[CardSection]
    length: int
    limit: int | None
    problems: list[str]
    """Channel rules the message breaks, in words; empty when it can be sent as it is."""


# -- Markdown to plain text and to WhatsApp markup ---------------------------------------------

# Line patterns use [ \t], never \s, so that they cannot swallow the line breaks around them.
_FENCE = re.compile(r"^[ \t]*```.*$", re.M)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)
_RULE = re.compile(r"^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$", re.M)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?", re.M)
_BULLET = re.compile(r"^([ \t]*)[*+][ \t]+", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)[^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)[^)]*\)")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STAR_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_UNDER_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_CODE = re.compile(r"`([^`\n]+)`")
_BLANKS = re.compile(r"\n{3,}")


def _link_text(m: re.Match[str]) -> str:
    text, url = m.group(1).strip(), m.group(2).strip()
    return url if text == url else f"{text} ({url})"


def strip_markdown(text: str) -> str:
    """Plain text a phone shows as it is: no #, **, _, links as "text (url)"."""
    out = _FENCE.sub("", text)
    out = _HEADING.sub(r"\1", out)
    out = _RULE.sub("", out)
    out = _QUOTE.sub("", out)
    out = _BULLET.sub(r"\1- ", out)
    out = _IMAGE.sub(lambda m: m.group(1), out)
    out = _LINK.sub(_link_text, out)
    out = _BOLD.sub(r"\2", out)
    out = _STAR_ITALIC.sub(r"\1", out)
    out = _UNDER_ITALIC.sub(r"\1", out)
    out = _STRIKE.sub(r"\1", out)
    out = _CODE.sub(r"\1", out)
    return _BLANKS.sub("\n\n", out).strip()


def to_whatsapp(text: str) -> str:
    """Markdown to WhatsApp's own markup: *bold*, _italic_, ~strike~; headings turn bold."""
    out = _FENCE.sub("", text)
    out = _RULE.sub("", out)
    out = _IMAGE.sub(lambda m: m.group(1), out)
    out = _LINK.sub(_link_text, out)
    # Bold goes through a placeholder so the italic pass does not read it as italic.
    out = _BOLD.sub(lambda m: f"\x00{m.group(2)}\x00", out)
    out = _HEADING.sub(lambda m: f"\x00{m.group(1)}\x00", out)
    out = _STAR_ITALIC.sub(r"_\1_", out)
    out = _STRIKE.sub(r"~\1~", out)
    out = out.replace("\x00\x00", "").replace("\x00", "*")
    return _BLANKS.sub("\n\n", out).strip()


def whatsapp_to_markdown(text: str) -> str:
    """WhatsApp markup back to Markdown, to preview a WhatsApp message as it will look."""
    out = re.sub(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])", r"**\1**", text)
    out = re.sub(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])", r"~~\1~~", out)
    return out


# -- SMS parts --------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*$")


def _sentences(text: str) -> list[tuple[str, bool]]:
    """(sentence, starts a new line) in order; words joined by single spaces."""
    units: list[tuple[str, bool]] = []
    for line in text.splitlines():
        words = line.split()
        current: list[str] = []
        new_line = bool(units)
        for w in words:
            current.append(w)
            if _SENTENCE_END.search(w):
                units.append((" ".join(current), new_line))
                current, new_line = [], False
        if current:
            units.append((" ".join(current), new_line))
    return units


def _break_long(sentence: str, budget: int) -> list[str]:
    """A sentence longer than a part: break between words, and inside a word only when the
    word alone is longer than a part."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        while len(word) > budget:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:budget])
            word = word[budget:]
        if not word:
            continue
        if current and len(current) + 1 + len(word) > budget:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def _pack(units: list[tuple[str, bool]], budget: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for sentence, new_line in units:
        pieces = [sentence] if len(sentence) <= budget else _break_long(sentence, budget)
        for i, piece in enumerate(pieces):
            sep = "\n" if new_line and i == 0 else " "
            if current and len(current) + 1 + len(piece) <= budget:
                current += sep + piece
            else:
                if current:
                    parts.append(current)
                current = piece
    if current:
        parts.append(current)
    return parts


def split_sms(text: str, limit: int = 160) -> list[MessagePart]:
    """Split at sentence boundaries into parts of at most `limit` characters, each marked
    "(i/n)" when there is more than one. Only whitespace changes: joined, the parts hold every
    other character of `text` in order."""
    if limit < 20:
        raise ValueError("an SMS part must allow at least 20 characters")
    units = _sentences(text)
    if not units:
        return []
    whole = _pack(units, 10**9)[0]
    if len(whole) <= limit:
        return [MessagePart(sequence=1, total=1, content=whole, indicator=None)]
    digits = 1
    while True:
        widest = "9" * digits
        groups = _pack(units, limit - len(f" ({widest}/{widest})"))
        if len(str(len(groups))) <= digits:
            break
        digits = len(str(len(groups)))
    n = len(groups)
    return [MessagePart(sequence=i, total=n, content=g, indicator=f"({i}/{n})")
            for i, g in enumerate(groups, 1)]


# -- Teams card ----------------------------------------------------------------------------

_BOLD_LINE = re.compile(r"^[ \t]*(\*\*|__)(.+?)\1:?[ \t]*$")


def to_card_sections(body: str) -> list[CardSection]:
    """Sections of a Teams card: a heading line (# Heading, or a **Heading** line of its own)
    starts a section; the paragraphs under it are its text."""
    sections: list[CardSection] = []
    heading: str | None = None
    lines: list[str] = []

    def close() -> None:
        text = "\n".join(lines).strip()
        if text or heading:
            sections.append(CardSection(heading=heading, text=_BLANKS.sub("\n\n", text)))

    for line in body.splitlines():
        m = _HEADING.match(line) or _BOLD_LINE.match(line)
        if m:
            close()
            heading = (m.group(1) if m.re is _HEADING else m.group(2)).strip()
            lines = []
        else:
            lines.append(line)
    close()
    return sections


def teams_adaptive_card(title: str, sections: list[CardSection]) -> dict[str, object]:
    """The card as Adaptive Card JSON (what a Teams bot or workflow posts)."""
    body: list[dict[str, object]] = [
        {"type": "TextBlock", "text": title, "size": "Large", "weight": "Bolder", "wrap": True}]
    for s in sections:
        if s.heading:
            body.append({"type": "TextBlock", "text": s.heading, "weight": "Bolder",
                         "wrap": True, "spacing": "Medium"})
        if s.text:
            body.append({"type": "TextBlock", "text": s.text, "wrap": True})
    return {"type": "AdaptiveCard", "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.4", "body": body}


# -- one message -----------------------------------------------------------------------------


def _over(spec: ChannelSpec, length: int) -> list[str]:
    if spec.max_length is not None and length > spec.max_length:
        return [f"{spec.label} message is {length:,} characters; the limit is "
                f"{spec.max_length:,}"]
    return []


def format_message(channel: str, body: str, *, subject: str | None = None,
                   title: str | None = None) -> FormattedMessage:
    """The message as it will appear on `channel`, with the channel rules it breaks."""
    spec = SPECS[channel]
    subject = (subject or "").strip() or None
    problems: list[str] = []
    parts: list[MessagePart] = []
    sections: list[CardSection] = []
    if spec.markup == "plain":
        text = strip_markdown(body)
        if spec.part_length:
            parts = split_sms(text, spec.part_length)
            length = len(" ".join(p.content for p in parts))
            text = "\n\n".join(p.text for p in parts)
        else:
            length = len(text)
    elif spec.markup == "whatsapp":
        text = to_whatsapp(body)
        length = len(text)
    elif spec.markup == "card":
        title = (title or subject or "").strip() or None
        sections = to_card_sections(body.strip())
        text = body.strip()
        length = len(text) + len(title or "")
        if not title:
            problems.append("Teams card needs a title")
    else:
        text = body.strip()
        length = len(text)
        if not subject:
            problems.append("Email needs a subject line")
    if not text.strip():
        problems.append(f"{spec.label} message is empty")
    problems += _over(spec, length)
    return FormattedMessage(
        channel=channel, label=spec.label, subject=subject if spec.needs_subject else None,
        title=title if spec.markup == "card" else None, text=text, parts=parts,
        sections=sections, length=length, limit=spec.max_length, problems=problems)
