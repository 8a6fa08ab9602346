"""Human acts on a run: approve, edit, send back, reject, halt, retry.

Each form's submit button runs its act in an on_click callback whose arguments were bound
when the form was drawn: the run version and the draft the person was looking at. So an act
on a run that changed meanwhile (another tab, another reviewer, the supervisor) is refused
with StaleRun and nothing is overwritten, even though the page re-reads the run afterwards.
The outcome is left in session_state and drawn next to the forms until the person dismisses
it: the page reloads itself while the run works, and a refusal that vanished with the next
poll would leave the person unsure what happened (and lose the text they typed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import streamlit as st

from engine import service
from engine.cancel import cancel
from engine.errors import ApprovalBlocked, ServiceError, StaleRun
from engine.exports.formats import export, formats
from engine.pipelines.registry import get_pipeline
from engine.run_state import RunStatus
from engine.service import MAX_COMMENT_CHARS, MAX_DRAFT_CHARS
from engine.views import DraftView, RunDetail
from ui.markdown import escape_inline
from ui.reviewer import MISSING_HINT, acting, permitted, role_hint

FLASH = "_flash"
OUTCOME = "_act_outcome"
FLASH_SECONDS = 12
STALE_TITLE = "This run changed since you opened it."
EDITABLE = (RunStatus.REVIEW, RunStatus.FAILED)
QUEUES_WORK = ("edit", "revise", "retry")
"""Acts whose message announces work ("the critics are re-scoring it"): it goes when that ends."""


@dataclass(frozen=True)
class Seen:
    """What the person saw when the form was drawn."""

    run_id: int
    version: int
    draft_id: int | None
    draft_version: int | None


@dataclass(frozen=True)
class Outcome:
    run_id: int
    act: str
    kind: str  # stale | blocked | error
    message: str
    unsaved: str | None = None
    """Text the person typed that was not saved (kept so that they can copy it)."""


def _seen(detail: RunDetail, draft: DraftView | None) -> Seen:
    return Seen(detail.id, detail.version, draft.id if draft else None,
                draft.version if draft else None)


# -- feedback ---------------------------------------------------------------------------------


def show_flash(detail: RunDetail) -> None:
    """The one message left by the person's last act on this run, kept across the page's own
    reloads for a few seconds. Said once: not when the run's status banner already says it
    (an approval that approved the run, a rejection), and not once the work it announces is
    over ("Saved v3. The critics are re-scoring it." goes when the scoring has ended)."""
    flash = st.session_state.get(FLASH)
    if not flash:
        return
    if (flash["run_id"] != detail.id or time.monotonic() - flash["at"] > FLASH_SECONDS
            or (flash["act"] in ("approve", "reject", "cancel")
                and detail.status in RunStatus.FINAL)
            or (flash["act"] in QUEUES_WORK and detail.status not in RunStatus.ACTIVE)):
        del st.session_state[FLASH]
        return
    st.success(flash["msg"], icon=":material/check_circle:")


def _attempt(seen: Seen, act: str, call: Callable[[], object], done: str, *,
             unsaved: str | None = None, after: Callable[[], None] | None = None) -> None:
    """Run one service call inside a submit callback and leave its outcome for the page."""
    st.session_state.pop(OUTCOME, None)
    try:
        call()
    except StaleRun as exc:
        st.session_state[OUTCOME] = Outcome(seen.run_id, act, "stale", str(exc), unsaved)
    except ApprovalBlocked as exc:
        st.session_state[OUTCOME] = Outcome(seen.run_id, act, "blocked", str(exc))
    except ServiceError as exc:
        st.session_state[OUTCOME] = Outcome(seen.run_id, act, "error", str(exc), unsaved)
    else:
        st.session_state[FLASH] = {"msg": done, "at": time.monotonic(), "run_id": seen.run_id,
                                   "act": act}
        if after:
            after()


def _dismiss() -> None:
    st.session_state.pop(OUTCOME, None)


def show_outcome(run_id: int, acts: tuple[str, ...]) -> None:
    """Draw the outcome of a refused act on this run, if it was one of `acts`. It stays,
    across the page's own reloads, until the person clicks Reload/Dismiss or acts again."""
    out: Outcome | None = st.session_state.get(OUTCOME)
    if out is None or out.act not in acts:
        return
    if out.run_id != run_id:  # left over from another run's page
        del st.session_state[OUTCOME]
        return
    if out.kind == "stale":
        detail = out.message.removeprefix(STALE_TITLE).strip()
        detail = detail.replace("Reload to see the latest version; nothing was saved.",
                                "Nothing was saved.")
        st.warning(f"**{STALE_TITLE}** {detail} The page now shows the latest state.",
                   icon=":material/sync_problem:")
    elif out.kind == "blocked":
        st.error(f"{out.message}", icon=":material/flag:")
    else:
        st.error(out.message, icon=":material/error:")
    if out.unsaved:
        with st.expander("Your unsaved text (copy it before you reload)"):
            st.code(out.unsaved, language="markdown", wrap_lines=True)
    st.button("Reload" if out.kind == "stale" else "Dismiss", key=f"dismiss_{out.act}",
              icon=":material/refresh:" if out.kind == "stale" else ":material/close:",
              on_click=_dismiss)


# -- edit (drawn in place of the draft) -------------------------------------------------------


def _edit_key(run_id: int) -> str:
    return f"editing_{run_id}"


def edit_toggle(detail: RunDetail, draft: DraftView | None, actor: str) -> bool:
    """The "Edit" switch above the draft; True while the person is editing."""
    may = bool(actor) and permitted(actor, detail.kind, ("edit",))["edit"]
    can = draft is not None and detail.status in EDITABLE and may
    why = ("Edit the text and save it as a new version; the critics re-score it." if can else
           MISSING_HINT if not actor else
           role_hint(actor, detail.kind, "edit") if not may else
           "You can edit while the run waits for review.")
    on = st.toggle("Edit", key=_edit_key(detail.id), disabled=not can, help=why)
    return bool(on and can)


def _text_key(seen: Seen) -> str:
    return f"edit_text_{seen.run_id}_{seen.draft_id}"


def _save_edit(seen: Seen, next_version: int) -> None:
    text = str(st.session_state.get(_text_key(seen)) or "")

    def close() -> None:
        st.session_state[_edit_key(seen.run_id)] = False

    _attempt(seen, "edit", lambda: service.edit(run_id=seen.run_id, **acting(), content=text,
                                          expected_version=seen.version,
                                          base_draft_id=seen.draft_id),
             f"Saved v{next_version}. The critics are re-scoring it.", unsaved=text, after=close)


def _cancel_edit(run_id: int) -> None:
    st.session_state[_edit_key(run_id)] = False


def render_edit_form(detail: RunDetail, draft: DraftView) -> None:
    seen = _seen(detail, draft)
    nxt = max(d.version for d in detail.drafts) + 1
    with st.form(f"edit_{detail.id}_{draft.id}", border=False):
        st.text_area(f"Editing v{draft.version} (Markdown)", value=draft.content, height=520,
                     key=_text_key(seen), max_chars=max(MAX_DRAFT_CHARS, len(draft.content)))
        left, right = st.columns([1, 1])
        left.form_submit_button(f"Save as v{nxt}", type="primary", icon=":material/save:",
                                on_click=_save_edit, args=(seen, nxt))
        right.form_submit_button("Cancel", on_click=_cancel_edit, args=(detail.id,))


# -- the review panel -------------------------------------------------------------------------


def render_acts(detail: RunDetail, draft: DraftView | None, actor: str) -> None:
    acts = ("approve", "revise", "reject", "halt", "retry")
    show_outcome(detail.id, (*acts, "cancel"))
    may = permitted(actor, detail.kind, acts)
    may["cancel"] = may["halt"]  # who may stop a run may stop it before it starts
    offered = _offered(detail, draft)
    if detail.status not in RunStatus.FINAL:
        if not actor:
            st.info(MISSING_HINT, icon=":material/person:")
        elif (barred := [a for a in offered if not may[a]]):
            st.info(role_hint(actor, detail.kind, barred[0]), icon=":material/lock:")
    seen = _seen(detail, draft)
    if "cancel" in offered:
        _cancel_form(seen, bool(detail.drafts), not may["cancel"])
    if "halt" in offered:
        _halt_form(seen, not may["halt"])
    if "retry" in offered:
        _retry_form(seen, not may["retry"])
    if "approve" in offered and draft is not None:
        _approve_form(seen, draft, detail.kind, not may["approve"])
    if "revise" in offered:
        _revise_form(seen, detail.kind, not may["revise"])
    if "reject" in offered:
        _reject_form(seen, not may["reject"])
    if detail.drafts:
        approved = detail.approved_draft_id is not None
        st.download_button(
            "Export approved draft (Markdown)" if approved else "Export current draft (Markdown)",
            data=export(detail, "markdown"), file_name=f"draftroom-run-{detail.id}.md",
            mime="text/markdown", icon=":material/download:", key=f"export_{detail.id}",
            on_click="ignore")
    render_pdf_export(detail)


PDF_LABEL = {"protocol": "Export handout (PDF)", "campaign": "Export plan (PDF)"}


def render_pdf_export(detail: RunDetail) -> None:
    """The print-ready PDF (a protocol's handout, a campaign's plan) once the run is approved:
    built only when clicked (fpdf2 and the layout take a moment; most visits never print)."""
    if detail.status != RunStatus.APPROVED or "pdf" not in formats(detail.kind):
        return
    st.download_button(
        PDF_LABEL.get(detail.kind, "Export approved version (PDF)"),
        data=partial(export, detail, "pdf"), file_name=f"draftroom-run-{detail.id}.pdf",
        mime="application/pdf", icon=":material/picture_as_pdf:", key=f"export_pdf_{detail.id}",
        on_click="ignore")


def _offered(detail: RunDetail, draft: DraftView | None) -> list[str]:
    """The acts that fit the run's state."""
    acts = []
    if detail.status == RunStatus.QUEUED:  # not started: nothing to halt, it can be called off
        acts.append("cancel")
    if detail.status == RunStatus.RUNNING:
        acts.append("halt")
    if detail.status == RunStatus.FAILED:
        acts.append("retry")
    if detail.status == RunStatus.REVIEW and draft is not None:
        acts.append("approve")
    if detail.status in EDITABLE:
        acts += ["revise", "reject"]
    return acts


def _approve(seen: Seen) -> None:
    reason = st.session_state.get(f"approve_reason_{seen.run_id}_{seen.draft_id}") or None
    _attempt(seen, "approve", lambda: service.approve(run_id=seen.run_id, **acting(),
                                                expected_version=seen.version,
                                                draft_id=seen.draft_id, override_reason=reason),
             _approved_message(seen))


def _approved_message(seen: Seen) -> str:
    """What the person reads after approving: under the two-person rule, the first approval
    does not approve the run yet."""
    from engine.approval_policy import current_state
    from engine.views import get_run

    state = current_state(seen.run_id, seen.draft_id, get_run(seen.run_id).kind)
    if state.count + 1 < state.policy.approvals:
        return (f"Your approval of v{seen.draft_version} is recorded: {state.count + 1} of "
                f"{state.policy.approvals} approvals. A second approver is needed.")
    return f"Approved v{seen.draft_version}."


def _refused_for_a_flag(seen: Seen) -> bool:
    """The service refused this approval for a flag its checks found on the exact text (one
    the stored version did not show): the person now needs the override box too."""
    out: Outcome | None = st.session_state.get(OUTCOME)
    return out is not None and out.kind == "blocked" and out.run_id == seen.run_id


def _approve_form(seen: Seen, draft: DraftView, kind: str, disabled: bool) -> None:
    blocking = [f for f in draft.flags if f.blocking]
    with st.form(f"approve_{seen.run_id}"):
        st.markdown("**Approve**")
        if blocking:
            cats = ", ".join(sorted({f.category.replace("_", " ") for f in blocking}))
            noun = get_pipeline(kind).flags_name
            st.markdown(f":red[v{draft.version} has {len(blocking)} open {noun} "
                        f"flag{'s' if len(blocking) != 1 else ''} ({escape_inline(cats)}).] "
                        "Approving it anyway needs an override reason, kept in the audit trail.")
        if blocking or _refused_for_a_flag(seen):
            # Only then: with no open flag there is nothing to override.
            st.text_area("Override reason (required)", max_chars=MAX_COMMENT_CHARS,
                         key=f"approve_reason_{seen.run_id}_{seen.draft_id}", height=68,
                         placeholder="Why this version is safe to use as it stands")
        st.form_submit_button(f"Approve v{draft.version}", type="primary",
                              icon=":material/check:", disabled=disabled,
                              on_click=_approve, args=(seen,))


def _revise(seen: Seen) -> None:
    key = f"revise_comment_{seen.run_id}"
    comment = str(st.session_state.get(key) or "")
    _attempt(seen, "revise", lambda: service.request_revision(run_id=seen.run_id, **acting(),
                                                        comment=comment,
                                                        expected_version=seen.version),
             "Sent back to the drafter with your comment.", unsaved=comment or None)


REVISE_EXAMPLE = {
    "protocol": "e.g. Use simpler words and add a step for the night before the exam.",
    "campaign": "e.g. Make the SMS shorter and lead with the student discount.",
}


def _revise_form(seen: Seen, kind: str, disabled: bool) -> None:
    with st.form(f"revise_{seen.run_id}", clear_on_submit=False):
        st.markdown("**Send back to the drafter**")
        st.text_area("What should change?", key=f"revise_comment_{seen.run_id}", height=90,
                     max_chars=MAX_COMMENT_CHARS,
                     placeholder=REVISE_EXAMPLE.get(kind, "What the next version should do "
                                                    "differently"))
        st.form_submit_button("Request revision", icon=":material/undo:", disabled=disabled,
                              on_click=_revise, args=(seen,))


def _reject(seen: Seen) -> None:
    comment = st.session_state.get(f"reject_comment_{seen.run_id}") or None
    _attempt(seen, "reject", lambda: service.reject(run_id=seen.run_id, **acting(),
                                              comment=comment, expected_version=seen.version),
             "Rejected the run.")


def _reject_form(seen: Seen, disabled: bool) -> None:
    with st.expander("Reject this run"):
        with st.form(f"reject_{seen.run_id}", border=False):
            st.text_input("Reason (optional)", key=f"reject_comment_{seen.run_id}",
                          max_chars=MAX_COMMENT_CHARS)
            st.form_submit_button("Reject", icon=":material/block:", disabled=disabled,
                                  on_click=_reject, args=(seen,))


def _halt(seen: Seen) -> None:
    comment = st.session_state.get(f"halt_comment_{seen.run_id}") or None
    _attempt(seen, "halt", lambda: service.halt(run_id=seen.run_id, **acting(), comment=comment),
             "Halt requested: the run stops after its current step.")


def _halt_form(seen: Seen, disabled: bool) -> None:
    with st.form(f"halt_{seen.run_id}"):
        st.markdown("**Halt the loop**")
        st.caption("The run stops after its current step and waits for your review.")
        st.text_input("Why (optional)", key=f"halt_comment_{seen.run_id}",
                      max_chars=MAX_COMMENT_CHARS)
        st.form_submit_button("Halt", icon=":material/stop_circle:", disabled=disabled,
                              on_click=_halt, args=(seen,))


def _cancel(seen: Seen) -> None:
    reason = st.session_state.get(f"cancel_reason_{seen.run_id}") or ""
    _attempt(seen, "cancel", lambda: cancel(run_id=seen.run_id, **acting(), reason=reason,
                                            expected_version=seen.version),
             "Cancelled: no worker will take this run.")


def _cancel_form(seen: Seen, has_versions: bool, disabled: bool) -> None:
    with st.form(f"cancel_{seen.run_id}"):
        st.markdown("**Cancel this run**")
        st.caption("It has not started: cancelled, no worker takes it and no model is called. "
                   + ("Its versions wait for your review as they were." if has_versions else
                      "It has no version yet, so it ends as rejected.")
                   + " Your name and reason go into the audit trail.")
        st.text_input("Why", key=f"cancel_reason_{seen.run_id}", max_chars=MAX_COMMENT_CHARS,
                      placeholder="e.g. Started by mistake: wrong audience")
        st.form_submit_button("Cancel run", icon=":material/cancel:", disabled=disabled,
                              on_click=_cancel, args=(seen,))


def _retry(seen: Seen) -> None:
    _attempt(seen, "retry", lambda: service.retry(run_id=seen.run_id, **acting()), "Retrying.")


def _retry_form(seen: Seen, disabled: bool) -> None:
    with st.form(f"retry_{seen.run_id}"):
        st.markdown("**Retry**")
        st.caption("Runs the failed step again; nothing already saved is touched.")
        st.form_submit_button("Retry the failed step", type="primary", icon=":material/replay:",
                              disabled=disabled, on_click=_retry, args=(seen,))
