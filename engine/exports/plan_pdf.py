"""A campaign's plan as a PDF for the people who run it: the plan's sections with their tables
(schedule, deliverables per creator, budget, KPIs) drawn as tables, its lists as lists, and
who approved the plan in every page's footer; a plan not approved yet is marked DRAFT on
every page. Fonts, footer and the DRAFT mark are the protocol handout's (pdf.py)."""

from __future__ import annotations

import re

from fpdf.fonts import FontFace

from engine.errors import InvalidState
from engine.exports.campaign import stage_approvals
from engine.exports.pdf import ACCENT, INK, MUTED, RULE, _Handout, _heading
from engine.exports.provenance import DRAFT_MARK
from engine.views import DraftView, RunDetail

_HEADING = re.compile(r"^(#{1,3})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")
_SEPARATOR = re.compile(r"^:?-{2,}:?$")
HEADER_FILL = (241, 245, 249)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _blocks(markdown: str) -> tuple[str, list[tuple[str, object]]]:
    """The title and, in order: ("h", heading), ("p", text), ("ul", items), ("table", rows
    with the header first and a flag per column: right-aligned or not)."""
    title, out = "", []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        heading = _HEADING.match(line)
        if heading:
            if len(heading.group(1)) == 1 and not title:
                title = heading.group(2)
            else:
                out.append(("h", heading.group(2)))
        elif line.lstrip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            align = next((r for r in rows if r and all(_SEPARATOR.match(c) for c in r)), [])
            rows = [r for r in rows if r is not align]
            out.append(("table", (rows, [c.endswith(":") for c in align])))
            continue
        elif _BULLET.match(line):
            items = []
            while i < len(lines) and _BULLET.match(lines[i]):
                items.append(_BULLET.match(lines[i]).group(1))  # type: ignore[union-attr]
                i += 1
            out.append(("ul", items))
            continue
        elif line.strip():
            out.append(("p", line.strip()))
        i += 1
    return title, out


def _table(pdf: _Handout, rows: list[list[str]], right: list[bool]) -> None:
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    aligns = [("RIGHT" if i < len(right) and right[i] else "LEFT") for i in range(width)]
    # Columns as wide as their longest text, within bounds: "Week 1" needs less than a task.
    widths = tuple(min(40, max(6, *(len(r[i]) for r in rows))) for i in range(width))
    pdf.set_font(pdf.family, "", 9.5)
    pdf.set_draw_color(*RULE)
    with pdf.table(text_align=tuple(aligns), col_widths=widths, line_height=5.2,
                   markdown=True, padding=1.6,
                   headings_style=FontFace(emphasis="BOLD", fill_color=HEADER_FILL),
                   borders_layout="HORIZONTAL_LINES") as table:
        for r in rows:
            row = table.row()
            for cell in r:
                row.cell(pdf.safe(cell))
    pdf.ln(3)


def render_plan(d: RunDetail, draft: DraftView, *, footer: str, draft_mark: str) -> bytes:
    title, blocks = _blocks(draft.content)
    pdf = _Handout(footer, draft_mark)
    pdf.set_title(pdf.safe(title or d.title))
    pdf.set_creator("Draftroom")
    pdf.add_page()
    pdf.set_text_color(*MUTED)
    pdf.para("CAMPAIGN PLAN", size=9, style="B", h=5)
    pdf.set_text_color(*INK)
    pdf.para(title or d.title, size=19, style="B", h=9)
    pdf.set_draw_color(*ACCENT)
    pdf.set_line_width(0.6)
    left = pdf.l_margin + pdf.c_margin
    pdf.ln(2)
    pdf.line(left, pdf.get_y(), left + 30, pdf.get_y())
    pdf.set_line_width(0.2)
    pdf.ln(3)
    for kind, body in blocks:
        if kind == "h":
            _heading(pdf, str(body))
        elif kind == "p":
            pdf.para(str(body).replace("**", ""), size=10.5)
            pdf.ln(2)
        elif kind == "ul":
            for item in body:  # type: ignore[attr-defined]
                pdf.para("\u2022  " + str(item).replace("**", ""), size=10.5, indent=3)
            pdf.ln(2)
        else:
            rows, right = body  # type: ignore[misc]
            _table(pdf, rows, right)
    return bytes(pdf.output())


def plan_pdf(d: RunDetail) -> bytes:
    """The approved plan (or the latest one, marked DRAFT); refused before a plan exists."""
    approved = stage_approvals(d).get("plan")
    drafts = [x for x in d.drafts if x.stage == "plan"]
    draft = approved.draft if approved else (drafts[-1] if drafts else None)
    if draft is None:
        raise InvalidState(f"Run {d.id} has no plan yet (it is at the {d.stage} stage): "
                           "export its messages as csv, or everything so far as markdown.")
    if approved:
        footer = (f"Plan v{draft.version} approved by {approved.action.actor} on "
                  f"{approved.action.at:%Y-%m-%d} · Draftroom run {d.id}")
        return render_plan(d, draft, footer=footer, draft_mark="")
    return render_plan(d, draft, footer=f"{DRAFT_MARK} · plan v{draft.version} · "
                                        f"Draftroom run {d.id}", draft_mark=DRAFT_MARK)
