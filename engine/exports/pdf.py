"""An approved protocol as a print-ready PDF handout (fpdf2): title, purpose, numbered steps,
reflection questions with lines to write on, the safety note in a box, and the approver,
date and version in every page's footer.

Unicode: DejaVu Sans (a TTF on most Linux systems; DRAFTROOM_PDF_FONT_DIR points elsewhere)
draws most scripts. A character the font lacks (most emoji) becomes a small box instead of
breaking the file; right-to-left lines are put in visual order with fpdf2's own bidi
algorithm. Without any TTF the core Helvetica font is used and text outside Latin-1 is
transliterated or replaced, so an export never fails on the text it holds."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from fpdf import FPDF
from fpdf.bidi import BIDI_BRACKETS, BidiParagraph, auto_detect_base_direction
from fpdf.enums import MethodReturnValue, TextDirection, XPos, YPos

from engine import markdown as md
from engine.config import settings
from engine.errors import InvalidState
from engine.exports.provenance import DRAFT_MARK, provenance
from engine.pipelines.protocol.text import for_reader  # judgement: no team-only sections
from engine.views import RunDetail

__all__ = ["Handout", "parse_handout", "render_handout", "protocol_handout", "find_fonts"]

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
             "/usr/share/fonts/TTF", "/usr/local/share/fonts", "/Library/Fonts",
             "C:/Windows/Fonts")
FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "I": "DejaVuSans-Oblique.ttf"}
FAMILY = "DejaVu"
MISSING = "\u25a1"  # a white square: visibly "a character this font cannot draw"
# Emoji presentation selectors, joiners and skin-tone modifiers: nothing to draw on their own.
INVISIBLE = {"\ufe0f", "\ufe0e", "\u200d", *map(chr, range(0x1F3FB, 0x1F400))}

INK = (30, 41, 59)
MUTED = (100, 116, 139)
ACCENT = (37, 99, 235)
SAFETY_FILL = (254, 243, 199)
SAFETY_EDGE = (217, 119, 6)
RULE = (203, 213, 225)
LINE_H = 6.2
WRITE_LINES = 2


@dataclass
class Section:
    heading: str
    blocks: list[tuple[str, str | list[str]]] = field(default_factory=list)
    """("p", text) | ("ol", items) | ("ul", items), in order."""


@dataclass
class Handout:
    title: str
    sections: list[Section]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.heading.casefold() == name.casefold()), None)


# -- parsing the draft's Markdown -----------------------------------------------------------

_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"\1"),
    (re.compile(r"__(.+?)__"), r"\1"),
    (re.compile(r"(?<!\w)\*(?!\s)(.+?)(?<!\s)\*(?!\w)"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"\[([^\]]+)\]\((\S+?)\)"), r"\1 (\2)"),
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~:])"), r"\1"),
]


def _plain(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text.strip()


def parse_handout(markdown: str, fallback_title: str = "CBT exercise") -> Handout:
    """Sections by "## " headings; numbered and bulleted lists and paragraphs inside. Text
    before the first section heading is kept as an untitled section."""
    title = ""
    sections: list[Section] = [Section("")]
    for sec in md.sections(markdown, max_level=6):
        if sec.level == 1 and not title:
            title = _plain(sec.title)
        elif sec.level:
            sections.append(Section(_plain(sec.title)))
        for kind, value in md.blocks(sec.lines):
            sections[-1].blocks.append(
                (kind, _plain(value) if isinstance(value, str) else [_plain(i) for i in value]))
    return Handout(title=title or fallback_title,
                   sections=[s for s in sections if s.heading or s.blocks])


# -- fonts and text -------------------------------------------------------------------------


def find_fonts() -> dict[str, Path] | None:
    """The DejaVu Sans files (regular, bold, oblique), or None when there are none."""
    own = settings().pdf_font_dir
    for d in [*([own] if own else []), *FONT_DIRS]:
        paths = {style: Path(d) / name for style, name in FONT_FILES.items()}
        if paths[""].is_file():
            return {s: p if p.is_file() else paths[""] for s, p in paths.items()}
    return None


def _has_rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


def _visual(line: str) -> str:
    """One line in visual order (no text shaping installed): RTL runs reversed, and the
    brackets inside them mirrored, as a shaping engine would."""
    return "".join(
        BIDI_BRACKETS[c.character]["pair"]
        if c.embedding_level % 2 and c.character in BIDI_BRACKETS else c.character
        for c in BidiParagraph(text=line).get_reordered_characters())


class _Handout(FPDF):
    def __init__(self, footer_text: str, draft_mark: str = "") -> None:
        super().__init__(format="A4", unit="mm")
        self.footer_text = footer_text
        self.draft_mark = draft_mark
        self.unicode = False
        self.cmap: set[int] = set()
        fonts = find_fonts()
        if fonts:
            for style, path in fonts.items():
                self.add_font(FAMILY, style, str(path))
            self.unicode = True
            self.cmap = set(self.fonts[FAMILY.lower()].cmap)
        self.family = FAMILY if self.unicode else "Helvetica"
        self.set_margins(20, 18, 20)
        self.set_auto_page_break(True, margin=22)
        self.alias_nb_pages()

    def safe(self, text: str) -> str:
        """Text this font can draw: missing glyphs become a box (TTF) or are transliterated
        (core font); never an exception."""
        if self.unicode:
            return "".join(
                "" if ch in INVISIBLE else ch if ch in "\n\t" or ord(ch) in self.cmap
                else MISSING for ch in text)
        out = []
        for ch in text:
            try:
                ch.encode("latin-1")
                out.append(ch)
            except UnicodeEncodeError:
                base = unicodedata.normalize("NFKD", ch).encode("latin-1", "ignore").decode()
                out.append(base or ("" if ch in INVISIBLE else "?"))
        return "".join(out)

    def header(self) -> None:
        """An unapproved version says so at the top of every page, in red."""
        if not self.draft_mark:
            return
        self.set_y(6)
        self.set_font(self.family, "B", 10)
        self.set_text_color(180, 20, 20)
        self.cell(0, 6, self.safe(self.draft_mark), align="C")
        self.set_text_color(*INK)
        self.set_y(self.t_margin)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font(self.family, "", 8)
        self.set_text_color(*MUTED)
        self.set_draw_color(*RULE)
        self.line(self.l_margin, self.get_y() - 2, self.w - self.r_margin, self.get_y() - 2)
        # The footer (who approved it, an override) never runs under the page number: it
        # gets the width left of it, smaller type if it needs it, and is cut only past that.
        room = (self.w - self.l_margin - self.r_margin
                - self.get_string_width("Page 999 of 999") - 4)
        text, size = self.safe(self.footer_text), 8.0
        while size > 6 and self.get_string_width(text) > room:
            size -= 0.5
            self.set_font(self.family, "", size)
        while len(text) > 1 and self.get_string_width(text) > room:
            text = text[:-2] + "…"
        self.cell(room, 5, text, align="L")
        self.set_font(self.family, "", 8)
        self.set_x(self.l_margin)
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="R")

    def para(self, text: str, *, size: float = 11, style: str = "", indent: float = 0,
             h: float = LINE_H) -> None:
        """A wrapped paragraph from the current y at l_margin + indent; RTL lines reordered."""
        self.set_font(self.family, style, size)
        text = self.safe(text)
        width = self.w - self.r_margin - self.l_margin - indent
        if not _has_rtl(text):
            self.set_x(self.l_margin + indent)
            self.multi_cell(width, h, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            return
        rtl = auto_detect_base_direction(text) == TextDirection.RTL
        lines = self.multi_cell(width, h, text, align="L", dry_run=True,
                                output=MethodReturnValue.LINES)
        for line in lines:
            self.set_x(self.l_margin + indent)
            self.cell(width, h, _visual(line), align="R" if rtl else "L",
                      new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def height_of(self, text: str, width: float, *, size: float = 11, h: float = LINE_H) -> float:
        self.set_font(self.family, "", size)
        lines = self.multi_cell(width, h, self.safe(text), dry_run=True,
                                output=MethodReturnValue.LINES)
        return len(lines) * h


# -- rendering ------------------------------------------------------------------------------


def _heading(pdf: _Handout, text: str) -> None:
    if pdf.get_y() > pdf.h - 45:  # keep a heading with what follows it
        pdf.add_page()
    pdf.ln(4)
    pdf.set_text_color(*ACCENT)
    pdf.para(text.upper() if len(text) < 40 else text, size=10.5, style="B", h=6)
    pdf.set_text_color(*INK)
    pdf.ln(1)


def _list(pdf: _Handout, items: list[str], numbered: bool, *, write_lines: int = 0) -> None:
    for i, item in enumerate(items, 1):
        if pdf.get_y() > pdf.h - 35:
            pdf.add_page()
        y = pdf.get_y()
        pdf.set_font(pdf.family, "B" if numbered else "", 11)
        pdf.set_text_color(*(ACCENT if numbered else INK))
        pdf.set_xy(pdf.l_margin, y)
        pdf.cell(8, LINE_H, f"{i}." if numbered else "\u2022" if pdf.unicode else "-")
        pdf.set_text_color(*INK)
        pdf.set_y(y)
        pdf.para(item, indent=8)
        for _ in range(write_lines):
            pdf.ln(7)
            pdf.set_draw_color(*RULE)
            pdf.line(pdf.l_margin + 8, pdf.get_y(), pdf.w - pdf.r_margin, pdf.get_y())
        pdf.ln(2.5 if not write_lines else 4)


def _safety_box(pdf: _Handout, section: Section) -> None:
    text = "\n".join(b if isinstance(b, str) else "\n".join(f"\u2022 {x}" for x in b)
                     for _, b in section.blocks)
    width = pdf.w - pdf.l_margin - pdf.r_margin
    height = pdf.height_of(text, width - 12) + 16
    if pdf.get_y() + height + 6 > pdf.h - pdf.b_margin:
        pdf.add_page()
    pdf.ln(5)
    top = pdf.get_y()
    pdf.set_fill_color(*SAFETY_FILL)
    pdf.set_draw_color(*SAFETY_EDGE)
    pdf.set_line_width(0.4)
    pdf.rect(pdf.l_margin, top, width, height, style="DF")
    pdf.set_line_width(0.2)
    pdf.set_xy(pdf.l_margin + 6, top + 4)
    pdf.set_text_color(*SAFETY_EDGE)
    pdf.set_font(pdf.family, "B", 10.5)
    pdf.cell(0, 6, pdf.safe(section.heading or "Safety note").upper(),
             new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(*INK)
    pdf.set_y(top + 10)
    pdf.para(text, indent=6, size=11)
    pdf.set_y(top + height + 2)


def render_handout(handout: Handout, *, footer: str, subtitle: str = "",
                   author: str = "", draft_mark: str = "",
                   approval: list[str] | None = None) -> bytes:
    pdf = _Handout(footer, draft_mark)
    pdf.set_title(pdf.safe(handout.title))
    pdf.set_author(pdf.safe(author))
    pdf.set_creator("Draftroom")
    pdf.add_page()
    pdf.set_text_color(*MUTED)
    pdf.para("CBT EXERCISE", size=9, style="B", h=5)
    pdf.set_text_color(*INK)
    pdf.ln(1)
    pdf.para(handout.title, size=21, style="B", h=9.5)
    if subtitle:
        pdf.set_text_color(*MUTED)
        pdf.para(subtitle, size=10, h=5.5)
        pdf.set_text_color(*INK)
    pdf.set_draw_color(*ACCENT)
    pdf.set_line_width(0.6)
    pdf.ln(3)
    left = pdf.l_margin + pdf.c_margin
    pdf.line(left, pdf.get_y(), left + 30, pdf.get_y())
    pdf.set_line_width(0.2)
    pdf.ln(3)
    for section in handout.sections:
        name = section.heading.casefold()
        if name.startswith("safety"):
            _safety_box(pdf, section)
            continue
        if section.heading:
            _heading(pdf, section.heading)
        for kind, body in section.blocks:
            if kind == "p":
                pdf.para(str(body))
                pdf.ln(2)
            else:
                _list(pdf, list(body), kind == "ol",
                      write_lines=WRITE_LINES if name.startswith("reflection") else 0)
    if approval:
        _heading(pdf, "Approval")
        pdf.set_text_color(*MUTED)
        for line in approval:
            pdf.para(line, size=9, h=4.8)
        pdf.set_text_color(*INK)
    return bytes(pdf.output())


def protocol_handout(d: RunDetail, *, approved_only: bool = False) -> bytes:
    """A protocol run as a PDF handout: the approved version, with who approved it, under
    which policy, and any override (engine/exports/provenance.py); a run not approved yet
    prints its current version marked DRAFT on every page (refused with approved_only).
    Refused (InvalidState) for a run that is not a protocol or has no draft."""
    if d.kind != "protocol":
        raise InvalidState(f"Run {d.id} is a {d.kind}: only protocols export as a PDF "
                           "handout (use Markdown or CSV).")
    draft = d.draft(d.approved_draft_id) if d.status == "approved" else None
    if draft is None and approved_only:
        raise InvalidState(f"Run {d.id} is not approved yet ({d.status.replace('_', ' ')}): "
                           "only an approved version is printed as a handout.")
    draft = draft or d.current
    if draft is None:
        raise InvalidState(f"Run {d.id} has no draft yet: there is nothing to print.")
    prov = provenance(d, draft)
    if prov.approved:
        last = prov.approvers[-1].at if prov.approvers else d.updated_at
        footer = (f"{prov.mark()} by {prov.who() or 'unknown'} on {_date(last)} · version "
                  f"{draft.version} · Draftroom run {d.id}")
    else:
        footer = f"{DRAFT_MARK} · version {draft.version} · Draftroom run {d.id}"
    audience = str(d.input.get("audience") or "").strip()
    return render_handout(parse_handout(for_reader(draft.content), d.title), footer=footer,
                          subtitle=f"For {audience}" if audience else "",
                          author=", ".join(a.name for a in prov.approvers),
                          draft_mark="" if prov.approved else DRAFT_MARK,
                          approval=prov.lines())


def _date(at: datetime) -> str:
    return f"{at:%Y-%m-%d}"
