"""The review queue's filters and run cards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

import streamlit as st

from engine.pipelines.registry import PIPELINES
from engine.queue_wait import QueuePlace
from engine.run_state import RunStatus
from engine.views import RunSummary
from ui.format import (
    STATUS,
    ago,
    flag_chip,
    halt_reason,
    score_chips,
    status_badge,
    usd,
)
from ui.markdown import escape_inline

TITLE_CHARS = 60
SECTIONS = (
    ("Needs a person", (RunStatus.REVIEW, RunStatus.FAILED), ":material/rate_review:"),
    ("Working", RunStatus.ACTIVE, ":material/autorenew:"),
    ("Finished", RunStatus.FINAL, ":material/done_all:"),
)


@dataclass
class Filters:
    kind: str | None
    statuses: list[str]
    reviewer: str | None
    search: str | None
    since: datetime | None
    until: datetime | None


def render_filters(reviewers: list[str], me: str) -> Filters:
    # Two wrapping rows (one element each) rather than two rows of three columns (four each):
    # see render_card on why every element counts.
    top = st.container(horizontal=True, gap="medium")
    search = top.text_input("Search titles", key="q_search", placeholder="e.g. exam panic",
                            icon=":material/search:")
    kinds = ["all", *sorted(PIPELINES), *(["campaign"] if "campaign" not in PIPELINES else [])]
    kind = top.segmented_control("Kind", kinds, default="all", key="q_kind", width="content",
                                 format_func=lambda k: k.capitalize()) or "all"
    statuses = top.multiselect("Status", list(STATUS), key="q_status", placeholder="Any status",
                               format_func=lambda s: STATUS[s][0])
    bottom = st.container(horizontal=True, gap="medium")
    options = ["anyone", *([me] if me else []), *[r for r in reviewers if r != me]]
    who = bottom.selectbox("Reviewer", options, key="q_reviewer", width=420,
                           format_func=lambda r: "Anyone" if r == "anyone"
                           else (f"Me ({r})" if r == me else r),
                           help="Runs this person started or acted on.")
    days = bottom.date_input("Created between", value=[], key="q_dates", format="YYYY-MM-DD",
                             width=260)
    since, until = _range(days)
    return Filters(kind=None if kind == "all" else kind, statuses=statuses,
                   reviewer=None if who == "anyone" else who, search=search.strip() or None,
                   since=since, until=until)


def _range(days: object) -> tuple[datetime | None, datetime | None]:
    given = days if isinstance(days, list | tuple) else [days]
    picked = [d for d in given if isinstance(d, date)]
    if not picked:
        return None, None
    since = datetime.combine(picked[0], time.min, tzinfo=UTC)
    last = picked[1] if len(picked) > 1 else picked[0]
    return since, datetime.combine(last + timedelta(days=1), time.min, tzinfo=UTC)


def render_counts(counts: dict[str, int]) -> None:
    """Runs per status over the whole database (engine.run_list.count_runs)."""
    # One row that wraps (one element) rather than four columns (five).
    row = st.container(horizontal=True)
    for label, statuses in (
            ("Awaiting review", (RunStatus.REVIEW,)), ("Failed", (RunStatus.FAILED,)),
            ("Working", RunStatus.ACTIVE), ("Approved", (RunStatus.APPROVED,))):
        row.metric(label, f"{sum(counts.get(s, 0) for s in statuses):,}", border=True)


def page_of(key: str, total: int, size: int) -> int:
    """Which page of a section to show (0-based, kept in session state under `key`)."""
    pages = max(1, -(-total // size))
    return min(max(int(st.session_state.get(key, 0)), 0), pages - 1)


def render_pager(key: str, total: int, size: int) -> None:
    """"Previous" / "next" under a section that has more than one page, and where this is."""
    if total <= size:
        return
    page = page_of(key, total, size)
    row = st.container(horizontal=True, vertical_alignment="center")
    first = page * size + 1
    if row.button("Previous", key=f"{key}_prev", icon=":material/chevron_left:",
                   disabled=page == 0):
        st.session_state[key] = page - 1
        st.rerun()
    row.caption(f"{first:,}-{min(first + size - 1, total):,} of {total:,}")
    if row.button("Next", key=f"{key}_next", icon=":material/chevron_right:",
                    disabled=(page + 1) * size >= total):
        st.session_state[key] = page + 1
        st.rerun()


def short(title: str, limit: int = TITLE_CHARS) -> str:
    """A title cut at a word boundary near `limit` characters (the card shows the whole title
    on hover)."""
    if len(title) <= limit:
        return title
    cut = title[:limit].rsplit(" ", 1)[0] or title[:limit]
    return cut.rstrip(" ,;:.-") + "…"


def _stages(kind: str) -> tuple[object, ...]:
    pipeline = PIPELINES.get(kind)
    return pipeline.stages if pipeline else ()


def card_link(r: RunSummary) -> str:
    """The card's first line: a Markdown link to the run's page, its title cut (TITLE_CHARS)
    with the whole title as the link's hover text. Markdown links open in a new tab, as the
    Costs and Calibration pages' links to runs do: the queue stays where it was (its filters
    and pages; in-app navigation dropped the filters' values on the way back)."""
    label = f"#{r.id} · {escape_inline(short(r.title))}"
    hover = f' "{escape_inline(r.title)}"' if short(r.title) != r.title else ""
    return f":material/article: [{label}](run?run={r.id}{hover})"


def render_card(r: RunSummary, place: QueuePlace | None = None) -> None:
    """One run; a queued one says its place in line and its expected wait (`place`). One
    Markdown block in a bordered box: the link, the chips, the small grey details and the
    note when there is one. Not st.page_link: its code is loaded on first use, and React
    reveals such elements together, ~0.3-0.5 s after the page's last message; Markdown is
    drawn as it arrives (the first run 0.6-0.7 s instead of 1.2 s at 50,000 runs, load ~9;
    bench/RESULTS.md). Every element is one more message the browser receives and lays out:
    two per card, where the two-column card had eight."""
    kind = (r.kind if len(_stages(r.kind)) < 2
            else f"{r.kind} · stage {r.stage.replace('_', ' ')}")
    meta = [kind, f"started by {escape_inline(r.created_by)}", f"updated {ago(r.updated_at)}"]
    if r.last_reviewer:
        meta.append(f"last act by {escape_inline(r.last_reviewer)}")
    if r.cost_usd:
        meta.append(usd(r.cost_usd))
    chips = score_chips(r.scores, r.thresholds)
    flags = flag_chip(r.open_flags, r.overridden)  # review: an override is not "1 flag"
    needs_person = r.status in (RunStatus.REVIEW, RunStatus.FAILED)
    notes = [n for n in (halt_reason(r.halt_reason) if needs_person else "",
                         place.sentence() if place is not None else "") if n]
    lines = [card_link(r),
             " ".join(x for x in (status_badge(r.status), chips or ":gray[no scores yet]",
                                  flags) if x),
             ":small[:gray[" + " · ".join(meta) + "]]"]
    if notes:
        lines.append(":small[:gray[" + escape_inline(" · ".join(notes)) + "]]")
    with st.container(border=True):
        st.markdown("  \n".join(lines))
