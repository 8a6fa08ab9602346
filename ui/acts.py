"""Human acts on a run: approve, edit, send back, reject, halt, retry. Each form passes the
run version the page was drawn from, so an act on a run that changed meanwhile is refused
(StaleRun) and nothing is overwritten."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from db.models import RunStatus
from engine import service
from engine.errors import ApprovalBlocked, ServiceError, StaleRun
from engine.export import export_markdown
from engine.views import DraftView, RunDetail
from ui.reviewer import MISSING_HINT

FLASH = "_flash"
EDITABLE = (RunStatus.REVIEW, RunStatus.FAILED)


FLASH_SECONDS = 12


def show_flash() -> None:
    """The message left by the person's last act: a toast once, and a banner for a few
    seconds (the page reruns on its own while the run works, which would wipe it)."""
    flash = st.session_state.get(FLASH)
    if not flash:
        return
    if time.monotonic() - flash["at"] > FLASH_SECONDS:
        del st.session_state[FLASH]
        return
    if not flash["toasted"]:
        st.toast(flash["msg"], icon=":material/check_circle:")
        flash["toasted"] = True
    st.success(flash["msg"], icon=":material/check_circle:")


def _act(slot: Any, name: str, fn: Callable[[], object], done: str,
         after: Callable[[], None] | None = None) -> None:
    """Run one service call; on success leave a message and redraw the page from the
    database; on refusal explain it next to the form (whose inputs keep their text)."""
    try:
        fn()
    except StaleRun as exc:
        with slot:
            st.warning(f"**This run changed since you opened it.** {exc}",
                       icon=":material/sync_problem:")
            st.button("Reload", key=f"reload_{name}", icon=":material/refresh:")
        return
    except ApprovalBlocked as exc:
        slot.error(f"{exc}", icon=":material/flag:")
        return
    except ServiceError as exc:
        slot.error(str(exc), icon=":material/error:")
        return
    if after:
        after()
    st.session_state[FLASH] = {"msg": done, "at": time.monotonic(), "toasted": False}
    st.rerun()


# -- edit (drawn in place of the draft) -------------------------------------------------------


def _edit_key(run_id: int) -> str:
    return f"editing_{run_id}"


def edit_toggle(detail: RunDetail, draft: DraftView | None, actor: str) -> bool:
    """The "Edit" switch above the draft; True while the person is editing."""
    key = _edit_key(detail.id)
    if st.session_state.pop(f"_close_{key}", False):
        st.session_state[key] = False
    can = draft is not None and detail.status in EDITABLE and bool(actor)
    why = ("Edit the text and save it as a new version; the critics re-score it." if can else
           MISSING_HINT if not actor else "You can edit while the run waits for review.")
    on = st.toggle("Edit", key=key, disabled=not can, help=why)
    return bool(on and can)


def _close_editor(run_id: int) -> None:
    st.session_state[f"_close_{_edit_key(run_id)}"] = True


def render_edit_form(detail: RunDetail, draft: DraftView, actor: str) -> None:
    nxt = max(d.version for d in detail.drafts) + 1
    with st.form(f"edit_{detail.id}_{draft.id}", border=False):
        text = st.text_area(f"Editing v{draft.version} (Markdown)", value=draft.content,
                            height=520, key=f"edit_text_{detail.id}_{draft.id}")
        left, right = st.columns([1, 1])
        save = left.form_submit_button(f"Save as v{nxt}", type="primary", icon=":material/save:")
        cancel = right.form_submit_button("Cancel")
    slot = st.container()
    if cancel:
        _close_editor(detail.id)
        st.rerun()
    if save:
        _act(slot, "edit", lambda: service.edit(run_id=detail.id, actor=actor, content=text or "",
                                        expected_version=detail.version,
                                        base_draft_id=draft.id),
             f"Saved v{nxt}. The critics are re-scoring it.",
             after=lambda: _close_editor(detail.id))


# -- the review panel -------------------------------------------------------------------------


def render_acts(detail: RunDetail, draft: DraftView | None, actor: str) -> None:
    if not actor and detail.status not in RunStatus.FINAL:
        st.info(MISSING_HINT, icon=":material/person:")
    disabled = not actor
    if detail.status in RunStatus.ACTIVE:
        _halt_form(detail, actor, disabled)
    if detail.status == RunStatus.FAILED:
        _retry_form(detail, actor, disabled)
    if detail.status == RunStatus.REVIEW and draft is not None:
        _approve_form(detail, draft, actor, disabled)
    if detail.status in EDITABLE:
        _revise_form(detail, actor, disabled)
        _reject_form(detail, actor, disabled)
    if detail.drafts:
        approved = detail.approved_draft_id is not None
        st.download_button(
            "Export approved draft (Markdown)" if approved else "Export current draft (Markdown)",
            data=export_markdown(detail.id), file_name=f"draftroom-run-{detail.id}.md",
            mime="text/markdown", icon=":material/download:", key=f"export_{detail.id}",
            on_click="ignore")


def _approve_form(detail: RunDetail, draft: DraftView, actor: str, disabled: bool) -> None:
    blocking = [f for f in draft.flags if f.blocking]
    with st.form(f"approve_{detail.id}"):
        st.markdown("**Approve**")
        if blocking:
            cats = ", ".join(sorted({f.category.replace("_", " ") for f in blocking}))
            st.markdown(f":red[v{draft.version} has {len(blocking)} open safety "
                        f"flag{'s' if len(blocking) != 1 else ''} ({cats}).] Approving it "
                        "anyway needs an override reason, kept in the audit trail.")
        reason = st.text_area(
            "Override reason" + (" (required)" if blocking else " (only if a flag is open)"),
            key=f"approve_reason_{detail.id}_{draft.id}", height=68,
            placeholder="Why this version is safe to use as it stands")
        ok = st.form_submit_button(f"Approve v{draft.version}", type="primary",
                                   icon=":material/check:", disabled=disabled)
    slot = st.container()
    if ok:
        _act(slot, "approve", lambda: service.approve(run_id=detail.id, actor=actor,
                                           expected_version=detail.version, draft_id=draft.id,
                                           override_reason=reason or None),
             f"Approved v{draft.version}.")


def _revise_form(detail: RunDetail, actor: str, disabled: bool) -> None:
    with st.form(f"revise_{detail.id}"):
        st.markdown("**Send back to the drafter**")
        comment = st.text_area("What should change?", key=f"revise_comment_{detail.id}",
                               height=90, placeholder="e.g. Use simpler words and add a step "
                               "for the night before the exam.")
        ok = st.form_submit_button("Request revision", icon=":material/undo:", disabled=disabled)
    slot = st.container()
    if ok:
        _act(slot, "revise", lambda: service.request_revision(run_id=detail.id, actor=actor,
                                                    comment=comment or "",
                                                    expected_version=detail.version),
             "Sent back to the drafter with your comment.")


def _reject_form(detail: RunDetail, actor: str, disabled: bool) -> None:
    with st.expander("Reject this run"):
        with st.form(f"reject_{detail.id}", border=False):
            comment = st.text_input("Reason (optional)", key=f"reject_comment_{detail.id}")
            ok = st.form_submit_button("Reject", icon=":material/block:", disabled=disabled)
        slot = st.container()
    if ok:
        _act(slot, "reject", lambda: service.reject(run_id=detail.id, actor=actor, comment=comment or None,
                                          expected_version=detail.version),
             "Rejected the run.")


def _halt_form(detail: RunDetail, actor: str, disabled: bool) -> None:
    with st.form(f"halt_{detail.id}"):
        st.markdown("**Halt the loop**")
        st.caption("The run stops after its current step and waits for your review.")
        comment = st.text_input("Why (optional)", key=f"halt_comment_{detail.id}")
        ok = st.form_submit_button("Halt", icon=":material/stop_circle:", disabled=disabled)
    slot = st.container()
    if ok:
        _act(slot, "halt", lambda: service.halt(run_id=detail.id, actor=actor, comment=comment or None),
             "Halt requested: the run stops after its current step.")


def _retry_form(detail: RunDetail, actor: str, disabled: bool) -> None:
    with st.form(f"retry_{detail.id}"):
        st.markdown("**Retry**")
        st.caption("Runs the failed step again; nothing already saved is touched.")
        ok = st.form_submit_button("Retry the failed step", type="primary",
                                   icon=":material/replay:", disabled=disabled)
    slot = st.container()
    if ok:
        _act(slot, "retry", lambda: service.retry(run_id=detail.id, actor=actor), "Retrying.")
