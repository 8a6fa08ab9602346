"""Campaign drafts on the Run page: the stage history, each stage's output drawn for what it
is (a brief or plan as a document, the shortlist as a table a person can change, every
outreach message as it will appear on its channel, with its parts), and the messages CSV.

Draft text is never rendered with unsafe_allow_html: plain-text channels go through st.text,
Markdown through st.markdown (which shows raw HTML as text), labels through escape_inline."""

from __future__ import annotations

import re

import streamlit as st

from engine import markdown as md
from engine.errors import ServiceError
from engine.exports.campaign import messages_csv, stage_approvals
from engine.highlight import segments
from engine.markdown import table_rows
from engine.pipelines.campaign.channels import LABELS, FormattedMessage
from engine.pipelines.campaign.creators import (
    Match,
    ShortlistEntry,
    reach_channel,
    shortlist_from_text,
)
from engine.pipelines.campaign.models import STAGE_LABELS, STAGES
from engine.pipelines.campaign.outreach import Message, parse_outreach
from engine.pipelines.campaign.text import sections
from engine.run_state import RunStatus
from engine.shortlist import channel_warning, directory_matches, edit_shortlist
from engine.views import DraftView, RunDetail
from ui.markdown import demote_headings, escape, escape_inline, flagged_draft
from ui.reviewer import reviewer

FLASH = "_campaign_flash"
WARNINGS = "_campaign_warnings"
ICONS = {"sms": ":material/sms:", "email": ":material/mail:", "whatsapp": ":material/chat:",
         "teams": ":material/groups:", "instagram_dm": ":material/photo_camera:"}


def render_campaign_draft(detail: RunDetail, draft: DraftView) -> None:
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash, icon=":material/check_circle:")
    for warning in st.session_state.pop(WARNINGS, []):
        st.warning(escape_inline(warning), icon=":material/call_split:")
    if stage_approvals(detail):  # before any approval the header's stage chips say it all
        render_stage_history(detail)
    if draft.stage != detail.stage:
        st.caption(f"This version belongs to the {STAGE_LABELS.get(draft.stage, draft.stage)} "
                   "stage.")
    render_stage_output(detail, draft, editable=True)
    _approved_earlier(detail)
    _csv(detail)


def render_stage_output(detail: RunDetail, draft: DraftView, *, editable: bool) -> None:
    if draft.stage == "creators":
        _shortlist(detail, draft, editable=editable)
    elif draft.stage == "outreach":
        _outreach(detail, draft)
    else:
        st.markdown(demote_headings(flagged_draft(segments(draft.content, draft.flags))))


# -- stage history ------------------------------------------------------------------------------


def stage_history_lines(detail: RunDetail) -> list[str]:
    """One Markdown line per stage: approved (by whom, which version), current, or to come."""
    approvals = stage_approvals(detail)
    at = STAGES.index(detail.stage) if detail.stage in STAGES else 0
    lines = []
    for i, stage in enumerate(STAGES):
        label = STAGE_LABELS[stage]
        versions = [d for d in detail.drafts if d.stage == stage]
        count = f"{len(versions)} version{'s' if len(versions) != 1 else ''}"
        a = approvals.get(stage)
        if a and (i < at or detail.status == RunStatus.APPROVED):
            # An approval over an open flag is no clean one: orange, and says so (qa6 #3).
            over = a.action.action == "approve_override"
            lines.append((":orange[:material/flag:]" if over else ":green[:material/check_circle:]")
                         + f" **{label}**: v{a.draft.version} "
                         + ("approved with an override by " if over else "approved by ")
                         + f"{escape_inline(a.action.actor)}, "
                         f"{a.action.at:%d %b %H:%M} UTC · {count}")
        elif i == at:
            state = {RunStatus.REVIEW: "waiting for your review",
                     RunStatus.QUEUED: "queued" if detail.next_node != "advance"
                     else "approved; moving on", RunStatus.RUNNING: "agents at work",
                     RunStatus.FAILED: "a step failed",
                     RunStatus.REJECTED: "rejected"}.get(detail.status, detail.status)
            # A send-back gives the drafter a fresh budget: say so, or "iteration 2 of 3"
            # after "3 of 3" reads as the count going backwards.
            ids = {d.id for d in versions}
            since = (" since the last send-back" if any(
                a.action == "revise" and a.draft_id in ids for a in detail.actions) else "")
            lines.append(f":blue[:material/arrow_forward:] **{label}**: {state} · {count}, "
                         f"iteration {detail.iteration} of {detail.max_iterations}{since}")
        else:
            lines.append(f":gray[:material/radio_button_unchecked:] {label}: not started")
    return lines


def render_stage_history(detail: RunDetail) -> None:
    st.markdown("  \n".join(stage_history_lines(detail)))


def _approved_earlier(detail: RunDetail) -> None:
    approvals = stage_approvals(detail)
    for stage in STAGES:
        a = approvals.get(stage)
        if a is None or (stage == detail.stage and detail.status != RunStatus.APPROVED):
            continue
        if stage == detail.stage:
            continue  # the approved final stage is the draft shown above
        with st.expander(f"Approved {STAGE_LABELS[stage].lower()} (v{a.draft.version})"):
            render_stage_output(detail, a.draft, editable=False)


# -- CREATORS -----------------------------------------------------------------------------------


def _summary(content: str) -> str:
    # The text between the title and the first section.
    title = next((s for s in md.sections(content, max_level=2) if s.level == 1), None)
    return title.body.strip() if title else ""


def _shortlist(detail: RunDetail, draft: DraftView, *, editable: bool) -> None:
    entries = shortlist_from_text(draft.content)
    summary = _summary(draft.content)
    if summary:
        st.markdown(escape(summary))
    st.markdown(f"**Shortlist: {len(entries)} creator{'s' if len(entries) != 1 else ''}** "
                f"(asked for {detail.input.get('num_creators', '?')})")
    channels = [str(c) for c in detail.input.get("channels", [])]
    for i, e in enumerate(entries, 1):
        st.markdown(creator_card(i, e, channels))
    unknown = [e.handle for e in entries if not e.in_directory]
    if unknown:
        st.warning("Not in the creator directory: " + ", ".join(escape_inline(h) for h in unknown),
                   icon=":material/person_search:")
    others = table_rows(next((b for k, b in sections(draft.content).items()
                              if "also considered" in k), ""))
    if others:
        # Lines that wrap, not a grid: a grid cut the match and the notes off at its edge.
        st.markdown("**Also considered**  \n" + "  \n".join(considered_line(r) for r in others))
    if editable:
        _shortlist_editor(detail, draft, [e.handle for e in entries])


def considered_line(cells: list[str]) -> str:
    """A row of the "Also considered" table (creator, name, niche, match, notes) as one
    Markdown line, all text escaped."""
    handle, name, niche, match, notes = (list(cells) + [""] * 5)[:5]
    head = f"{escape_inline(handle)}" + (f" ({escape_inline(name)})" if name else "")
    bits = [b for b in (niche, f"match {match}" if match else "") if b]
    tail = f" · {escape_inline(' · '.join(bits))}" if bits else ""
    why = f" :gray[{escape_inline(notes)}]" if notes else ""
    return f"- **{head}**{tail}{why}"


def contact_line(e: ShortlistEntry, channels: list[str]) -> str:
    """Which channel reaches the creator: the campaign's, when theirs is not one of them
    (the plan names the same one, engine.pipelines.campaign.creators.reach_channel)."""
    own = LABELS.get(e.contact_channel, e.contact_channel)
    via = reach_channel(e.contact_channel, channels)
    if via == e.contact_channel:
        return f"contact by {own}"
    return f"contact by {LABELS.get(via, via)} ({own} is not one of this campaign's channels)"


def creator_card(i: int, e: ShortlistEntry, channels: list[str] | None = None) -> str:
    """One shortlisted creator as two Markdown lines: who, and why (all text escaped)."""
    if not e.in_directory:
        head = f"**{i}. {escape_inline(e.handle)}** :orange-badge[not in the directory]"
    else:
        facts = [e.name, e.platform.title(), f"{e.audience_size:,} followers", e.location,
                 f"{e.engagement_rate:.1f}% engagement", f"fee ${e.fee_usd:,.0f}",
                 contact_line(e, channels or [])]
        match = f" :blue-badge[match {e.match_pct}%]" if e.match_pct is not None else ""
        head = (f"**{i}. {escape_inline(e.handle)}**{match}  \n"
                + " · ".join(escape_inline(f) for f in facts if f))
    why = f"  \n:gray[{escape_inline(e.reasons)}]" if e.reasons else ""
    return head + why


def _shortlist_editor(detail: RunDetail, draft: DraftView, current: list[str]) -> None:
    actor = reviewer()
    can = (detail.status == RunStatus.REVIEW and draft.id == detail.current_draft_id
           and bool(actor))
    if not can:
        return
    channels = [str(c) for c in detail.input.get("channels", [])]
    ranked = {m.creator.handle: m for m in directory_matches(detail.id, exclude=current)}
    with st.form(f"shortlist_{detail.id}_{draft.id}"):
        st.markdown("**Change the shortlist**")
        # Full width, one under the other: each choice names its match, niche and town.
        remove = st.multiselect("Remove", current, key=f"sl_remove_{draft.id}")
        # Plain handles, best match first; the match and the reasons are in the list below.
        # (With a format_func naming the match, Chromium's submit of this form did nothing:
        # tests/e2e/test_campaign_browser.py saw no new version; AppTest did not show it.)
        add = st.multiselect("Add from the directory", list(ranked), key=f"sl_add_{draft.id}")
        off = [h for h, m in ranked.items() if channel_warning(m.creator, channels)]
        if off:
            st.caption("Not on this campaign's channels: " + ", ".join(
                escape_inline(h) for h in off[:12]) + ("…" if len(off) > 12 else ""))
        with st.expander(f"Why this order ({len(ranked)} creators, best match first)"):
            st.markdown("\n".join(match_line(m) for m in list(ranked.values())[:12]))
        st.caption("Saved as your version of the shortlist; the Evaluator re-scores it and the "
                   "OUTREACH stage writes to exactly the creators you approve.")
        ok = st.form_submit_button("Save shortlist", icon=":material/group_add:")
    if ok:
        if not add and not remove:
            st.info("Choose creators to add or remove first.")
            return
        try:
            saved = edit_shortlist(run_id=detail.id, actor=actor, add=add, remove=remove,
                                   expected_version=detail.version)
        except ServiceError as exc:
            st.error(str(exc), icon=":material/error:")
            return
        st.session_state[FLASH] = (f"Saved your shortlist ({len(add)} added, {len(remove)} "
                                   "removed). The Evaluator is re-scoring it.")
        st.session_state[WARNINGS] = saved.warnings
        st.rerun()


def match_line(m: Match) -> str:
    """A ranked creator and the reasons for their place, as a Markdown bullet (escaped)."""
    return (f"- **{escape_inline(m.creator.handle)}** {round(m.score * 100)}%: "
            + escape_inline("; ".join(m.reasons)))


# -- OUTREACH -----------------------------------------------------------------------------------


def _outreach(detail: RunDetail, draft: DraftView) -> None:
    brand = str(detail.input.get("brand_name") or "")
    doc = parse_outreach(draft.content)
    creators = doc.creators()
    channels = list(detail.input.get("channels", []))
    st.markdown(f"**{len(doc.messages)} messages** to {len(creators)} creator"
                f"{'s' if len(creators) != 1 else ''}, as each will appear on its channel.")
    missing = doc.missing(channels)
    if missing:
        st.warning("No message yet for " + ", ".join(
            f"{escape_inline(h)} on {escape_inline(c)}" for h, c in missing[:8])
            + (" and more" if len(missing) > 8 else ""), icon=":material/mail_lock:")
    for label in doc.unknown_channels:
        st.warning(f"“{escape_inline(label)}” is not a channel; use SMS, Email, WhatsApp, "
                   "Teams or Instagram DM as the ### heading.", icon=":material/help:")
    if not creators:
        st.markdown(escape(draft.content))
        return
    tabs = st.tabs([h for h, _ in creators])
    for tab, (handle, name) in zip(tabs, creators, strict=True):
        with tab:
            if name:
                st.caption(f"To {escape_inline(name)} ({escape_inline(handle)})")
            for m in (x for x in doc.messages if x.handle == handle):
                _message(m, m.formatted(brand), draft)


def _meta(f: FormattedMessage) -> str:
    bits = [f"{f.length:,}" + (f" of {f.limit:,}" if f.limit else "") + " characters"]
    if len(f.parts) > 1:
        bits.append(f"sent as {len(f.parts)} parts")
    return " · ".join(bits)


def _message(m: Message, f: FormattedMessage, draft: DraftView) -> None:
    with st.container(border=True):
        st.markdown(f"{ICONS.get(f.channel, '')} **{escape_inline(f.label)}** · "
                    f":gray[{escape_inline(_meta(f))}]")
        if f.channel == "email":
            st.markdown(f"**Subject:** {escape_inline(f.subject or '(no subject)')}")
            st.divider()
            st.markdown(demote_headings(f.text, by=3))
        elif f.channel == "teams":
            with st.container(border=True):
                st.markdown(f"**{escape_inline(f.title or '(no title)')}**")
                for s in f.sections:
                    if s.heading:
                        st.markdown(f"**{escape_inline(s.heading)}**")
                    if s.text:
                        st.markdown(demote_headings(s.text, by=3))
        elif f.channel == "whatsapp":
            with st.chat_message("brand", avatar=ICONS["whatsapp"]):
                st.markdown(whatsapp_preview(f.text))
        else:
            for text in [p.text for p in f.parts] or [f.text]:
                with st.chat_message("brand", avatar=ICONS.get(f.channel)):
                    st.text(text)
        for problem in f.problems:
            st.error(escape_inline(problem), icon=":material/rule:")
        for flag in draft.flags:
            if m.start <= flag.start < max(m.end, m.start + 1):
                st.error(f"**{escape_inline(flag.category.replace('_', ' ').capitalize())}**: "
                         f"“{escape_inline(flag.text)}”", icon=":material/flag:")


_WA = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"
                 r"|(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])"
                 r"|(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")


def whatsapp_preview(text: str) -> str:
    """WhatsApp text as Markdown that shows what the phone shows: *bold*, _italic_, ~strike~
    styled, everything else literal."""
    out, pos = [], 0
    for m in _WA.finditer(text):
        out.append(escape(text[pos:m.start()]))
        bold, italic, strike = m.groups()
        if bold is not None:
            out.append(f"**{escape_inline(bold)}**")
        elif italic is not None:
            out.append(f"_{escape_inline(italic)}_")
        else:
            out.append(f"~~{escape_inline(strike)}~~")
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


# -- export -------------------------------------------------------------------------------------


def _csv(detail: RunDetail) -> None:
    if not any(d.stage == "outreach" for d in detail.drafts):
        return
    approved = "outreach" in stage_approvals(detail)
    st.download_button(
        "Messages as CSV (per creator and channel)" if approved
        else "Messages as CSV (not approved yet)",
        data=messages_csv(detail), file_name=f"draftroom-run-{detail.id}-messages.csv",
        mime="text/csv", icon=":material/table:", key=f"csv_{detail.id}", on_click="ignore")
