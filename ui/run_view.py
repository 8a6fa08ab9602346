"""The top of the Run page: header, the current draft with its flags, and the
scores against their thresholds."""

from __future__ import annotations

import importlib.util

import streamlit as st

from engine.checks.crisis import region_of
from engine.exports.campaign import stage_approvals
from engine.exports.provenance import override_acts
from engine.highlight import segments, unlocated
from engine.nothing_to_review import nothing_to_review
from engine.run_state import RunStatus
from engine.views import DraftView, RunDetail
from ui.format import halt_reason, status_badge, usd
from ui.markdown import demote_headings, escape_inline, flagged_draft


def author_label(d: DraftView) -> str:
    return f"{d.author} (person)" if d.author_kind == "human" else f"{d.author} (agent)"


def render_header(detail: RunDetail) -> None:
    st.title(escape_inline(detail.title), anchor=False)
    bits = [status_badge(detail.status), f":gray-badge[{detail.kind}]"]
    if detail.status == RunStatus.APPROVED and override_acts(detail):
        bits.insert(1, ":orange-badge[:material/gpp_maybe: with override]")
    reason = halt_reason(detail.halt_reason)
    if reason and detail.status in (RunStatus.REVIEW, RunStatus.FAILED):
        bits.append(f":gray-badge[{escape_inline(reason)}]")
    cur = detail.current
    meta = [f"Run #{detail.id}", f"started by {escape_inline(detail.created_by)}",
            f"{detail.created_at:%d %b %Y %H:%M} UTC"]
    if cur:
        meta.append(f"v{cur.version} by {escape_inline(author_label(cur))}")
    meta += [f"cost {usd(detail.cost_usd)}", f"{detail.tokens:,} tokens in {detail.calls} calls"]
    if detail.budget_usd is not None:
        meta.append(f"budget {usd(detail.budget_usd)}")
    if detail.kind == "protocol":  # whose crisis lines the safety note gives and is checked for
        meta.append(f"crisis lines for {escape_inline(region_of(detail.input).name)}")
    if detail.kind == "campaign":  # -- intake: the campaign's market (hook, begin) --
        from engine.pipelines.campaign.market import market_line
        meta.append(escape_inline(market_line(detail.input)))  # -- intake: (hook, end) --
    st.markdown(" ".join(bits) + "  \n" + " · ".join(meta))
    if len(detail.stages) > 1 and detail.stage in detail.stages:  # else render_unknown says
        render_stages(detail)


def render_unknown(detail: RunDetail) -> None:
    """Say which of the run's data this version does not define; the page draws the rest."""
    if detail.unknown:
        st.warning("This version of Draftroom does not know this run's "
                   + "; ".join(escape_inline(u) for u in detail.unknown)
                   + ". The run is shown as stored; thresholds, stage progress and acts that "
                   "depend on them may be missing or refused.", icon=":material/help:")


def render_stages(detail: RunDetail) -> None:
    """Stage progress for multi-stage pipelines (campaigns)."""
    at = detail.stages.index(detail.stage) if detail.stage in detail.stages else 0
    final = detail.status == RunStatus.APPROVED
    chips = []
    # -- camp8: a stage approved over an open flag is no clean approval (qa6 finding 3) --
    overridden = {k for k, a in stage_approvals(detail).items()
                  if a.action.action == "approve_override"}
    for i, name in enumerate(detail.stages):
        label = escape_inline(name.replace("_", " "))
        if (i < at or (final and i == at)) and name in overridden:
            chips.append(f":orange-badge[:material/flag: {label} (override)]")
        elif i < at or (final and i == at):
            chips.append(f":green-badge[:material/check: {label}]")
        elif i == at:
            chips.append(f":blue-badge[:material/arrow_forward: {label}]")
        else:
            chips.append(f":gray-badge[{label}]")
    st.markdown("**Stages** " + " → ".join(chips))


def render_status_banner(detail: RunDetail) -> None:
    empty = nothing_to_review(detail)
    if empty:  # waiting for a person, but with no draft: say why and what to do instead
        st.warning(empty.sentence(), icon=":material/pan_tool:")
        return
    reason = halt_reason(detail.halt_reason)
    if detail.status == RunStatus.REVIEW:
        msg = f"Waiting for your review: {reason}." if reason else "Waiting for your review."
        cur = detail.current
        flagged = [f for f in cur.flags if f.blocking] if cur else []
        if flagged and cur:  # e.g. a person's edit the checks flagged: not a blue "all fine"
            n = len(flagged)
            msg += (f" v{cur.version} has {n} open flag{'s' if n != 1 else ''}: approving it "
                    "needs an override reason.")
        limit = detail.halt_reason in ("max_iterations", "budget_reached", "stalled")
        best = detail.draft(detail.best_draft_id)
        if limit and best and best.id != detail.current_draft_id:
            msg += f" v{best.version} scored best of this cycle; see Versions & diff."
        if limit or flagged:
            st.warning(msg, icon=":material/flag:" if flagged else ":material/pan_tool:")
        else:
            st.info(msg, icon=":material/rate_review:")
    elif detail.status == RunStatus.FAILED:
        st.error(f"A step failed: {detail.error or reason}. Retry it, edit the draft, or "
                 "reject the run.", icon=":material/error:")
    elif detail.status == RunStatus.APPROVED:
        render_approved_banner(detail)
    elif detail.status == RunStatus.REJECTED and detail.halt_reason == "cancelled":
        act = next((a for a in reversed(detail.actions) if a.action == "cancel"), None)
        by = f" by {escape_inline(act.actor)}" if act else ""
        why = f": {escape_inline(act.comment)}" if act and act.comment else ""
        st.info(f"Cancelled{by} before it started{why}. Nothing from "
                "this run will be used.", icon=":material/cancel:")
    elif detail.status == RunStatus.REJECTED:
        st.info("Rejected. Nothing from this run will be used.", icon=":material/block:")


def render_approved_banner(detail: RunDetail) -> None:
    """Green for a clean approval; orange, naming what was overridden and why, for an approval
    given over an open flag (it must never read like a clean one)."""
    who = next((a for a in reversed(detail.actions) if a.action.startswith("approve")), None)
    ver = detail.draft(detail.approved_draft_id)
    by = f" by {escape_inline(who.actor)} on {who.at:%d %b %Y %H:%M} UTC" if who else ""
    at = f" (v{ver.version})" if ver else ""
    overrides = override_acts(detail)
    if not overrides:
        st.success(f"Approved{by}{at}.", icon=":material/check_circle:")
        return
    ids = {a.draft_id for a in overrides}
    flagged = [f for d in detail.drafts if d.id in ids for f in d.flags if f.blocking]
    cats = sorted({f.category.replace("_", " ") for f in flagged})
    over = (f"{len(flagged)} open flag{'s' if len(flagged) != 1 else ''} "
            f"({escape_inline(', '.join(cats))})" if flagged else "an open flag")
    reasons = "  \n".join(f"Override reason by **{escape_inline(a.actor)}**: "
                          f"“{escape_inline(a.comment or '')}”" for a in overrides)
    st.warning(f"**Approved with an override**{by}{at}: approved over {over} the checks "
               f"raised.  \n{reasons}", icon=":material/gpp_maybe:")


def tab_key(run_id: int) -> str:
    """The widget key of a run's tabs (Score history, Versions & diff, ...): the open tab is
    kept per run, and a test opens one by setting it in session state."""
    return f"run_tab_{run_id}"


def pick_version(detail: RunDetail) -> DraftView | None:
    """The version shown, scored, edited and approved: the current one unless the person
    picks another of this stage (e.g. the best when the iteration limit was reached). A link
    to a version of a stage the run has moved past (?version=N, from Calibration) shows it."""
    wanted = st.query_params.get("version")  # ops: the Calibration page links to a version
    linked = next((d for d in detail.drafts if str(d.version) == wanted), None)
    if linked is not None and linked.stage != detail.stage:
        return linked  # shown as it was, never edited or acted on (acts are on this stage)
    stage = [d for d in detail.drafts if d.stage == detail.stage]
    if len(stage) < 2 or detail.status in RunStatus.ACTIVE:
        return detail.current
    marks = {detail.current_draft_id: "current", detail.best_draft_id: "best",
             detail.approved_draft_id: "approved"}

    def label(d: DraftView) -> str:
        tags = [m for i, m in marks.items() if i == d.id]
        return f"v{d.version} · {author_label(d)}" + (f" ({', '.join(tags)})" if tags else "")

    current = detail.current
    index = stage.index(current) if current in stage else len(stage) - 1
    index = stage.index(linked) if linked in stage else index
    return st.selectbox("Version", stage, index=index, format_func=label,
                        help="Look at, edit or approve any version of this stage.")


def render_earlier_note(detail: RunDetail, draft: DraftView) -> None:
    """Say why a linked earlier-stage version cannot be edited or reviewed here."""
    st.caption(f"v{draft.version} is from the {escape_inline(draft.stage.replace('_', ' '))} "
               "stage, which this run has moved past: shown as it was. Edits and reviews act "
               "on the current stage's version.")
    st.page_link("pages/run.py", label="Open the current version", icon=":material/arrow_forward:",
                 query_params={"run": str(detail.id)})


def render_draft(detail: RunDetail, draft: DraftView) -> None:
    """The draft as Markdown (never with HTML), with flagged sentences highlighted; a campaign
    draft is drawn by the campaign view when it exists."""
    if detail.kind == "campaign" and importlib.util.find_spec("ui.campaign_view") is not None:
        from ui.campaign_view import render_campaign_draft

        render_campaign_draft(detail, draft)
        return
    st.markdown(demote_headings(flagged_draft(segments(draft.content, draft.flags))),
                anchors=False)
    # Findings about the draft as a whole (a comment not addressed) have no place in the text.
    for f in unlocated(draft.content, [f for f in draft.flags if f.end > f.start]):
        st.caption(f"Flag not found in the text any more: “{escape_inline(f.text)}”")


def render_scores(detail: RunDetail, draft: DraftView | None) -> None:
    if draft is None or not draft.scores:
        st.caption("No scores yet: the critics score each version after it is written.")
        return
    names = [n for n in detail.thresholds if n in draft.scores]
    names += sorted(set(draft.scores) - set(names))
    for start in range(0, len(names), 3):
        cols = st.columns(3)
        for col, name in zip(cols, names[start:start + 3], strict=False):
            value = draft.scores[name]
            t = detail.thresholds.get(name)
            col.metric(
                name, f"{value:.2f}", delta=None if t is None else f"{value - t:+.2f} vs {t:.2f}",
                help=None if t is None else f"Threshold {t:.2f}; the margin is shown below.")


def render_flags(draft: DraftView | None) -> None:
    if draft is None:
        return
    blocking = [f for f in draft.flags if f.blocking]
    other = [f for f in draft.flags if not f.blocking]
    for f in blocking:
        st.error(f"**{escape_inline(f.category.replace('_', ' ').capitalize())}** "
                 f"({escape_inline(f.check.replace('_', ' '))}): “{escape_inline(f.text)}”",
                 icon=":material/flag:")
    for f in other:
        if f.category == "not_addressed":
            st.warning(f"**Not addressed** in v{draft.version}: “{escape_inline(f.text)}”",
                       icon=":material/feedback:")
            continue
        st.warning(f"**{escape_inline(f.category.replace('_', ' ').capitalize())}**: "
                   f"“{escape_inline(f.text)}”", icon=":material/warning:")
