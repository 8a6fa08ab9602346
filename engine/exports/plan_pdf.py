"""A campaign's plan as a PDF for the people who run it: the plan's sections with their tables
(schedule, deliverables per creator, budget, KPIs) drawn as tables, its lists as lists, and
who approved the plan in every page's footer; a plan not approved yet is marked DRAFT on
every page. Fonts, footer and the DRAFT mark are the protocol handout's (pdf.py)."""

from __future__ import annotations

from fpdf.fonts import FontFace

from engine import markdown as md
from engine.errors import InvalidState
from engine.exports.campaign import stage_approvals
from engine.exports.pdf import ACCENT, INK, MUTED, RULE, _Handout, _heading
from engine.exports.provenance import DRAFT_MARK, OVERRIDE_MARK
from engine.views import DraftView, RunDetail

HEADER_FILL = (241, 245, 249)


def _table_block(lines: list[str]) -> tuple[str, object]:
    rows = [md.split_row(line) for line in lines]
    align = next((r for r in rows if md.is_separator(r)), [])
    return "table", ([r for r in rows if r is not align], [c.endswith(":") for c in align])


def _section_blocks(lines: list[str]) -> list[tuple[str, object]]:
    """A section's paragraphs and lists (engine/markdown.py) with its pipe tables between."""
    out: list[tuple[str, object]] = []
    run: list[str] = []
    in_table = False
    for line in [*lines, ""]:
        is_row = line.lstrip().startswith("|")
        if is_row != in_table:
            out += [_table_block(run)] if in_table else list(md.blocks(run))
            run, in_table = [], is_row
        run.append(line)
    out += [_table_block(run)] if in_table and run else list(md.blocks(run))
    return out


def _blocks(markdown: str) -> tuple[str, list[tuple[str, object]]]:
    """The title (the first "# " heading) and, in order: ("h", heading), ("p", text),
    ("ul"/"ol", items), ("table", (rows with the header first, right-aligned columns))."""
    title, out = "", []
    for sec in md.sections(markdown, max_level=2):
        if sec.level == 1 and not title:
            title = sec.title
        elif sec.level:
            out.append(("h", sec.title))
        out += _section_blocks(sec.lines)
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
        elif kind in ("ul", "ol"):
            for n, item in enumerate(body, 1):  # type: ignore[arg-type]
                mark = f"{n}." if kind == "ol" else "\u2022"
                pdf.para(f"{mark}  " + str(item).replace("**", ""), size=10.5, indent=3)
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
        how = ("approved" if approved.action.action == "approve"
               else f"{OVERRIDE_MARK} of an open flag")  # an override never reads as clean
        footer = (f"Plan v{draft.version} {how} by {approved.action.actor} on "
                  f"{approved.action.at:%Y-%m-%d} · Draftroom run {d.id}")
        return render_plan(d, draft, footer=footer, draft_mark="")
    return render_plan(d, draft, footer=f"{DRAFT_MARK} · plan v{draft.version} · "
                                        f"Draftroom run {d.id}", draft_mark=DRAFT_MARK)
