"""Who is acting: a name kept for the browser session (st.session_state), set in the sidebar
and passed as the actor of every human act. Not a login: the audit trail marks it unverified."""

from __future__ import annotations

import streamlit as st

KEY = "reviewer"
WIDGET_KEY = "reviewer_input"
MISSING_HINT = "Enter your name under **Reviewer** in the sidebar to act on runs."


def reviewer() -> str:
    return str(st.session_state.get(KEY) or "").strip()


def sync_from_widget() -> None:
    """on_change of the sidebar field: keep the name under a key Streamlit never cleans up
    (widget state is dropped when a page switch re-creates the widget)."""
    st.session_state[KEY] = str(st.session_state.get(WIDGET_KEY) or "").strip()


def prepare_widget() -> None:
    """Before drawing the sidebar field: show the name kept for this session."""
    st.session_state[WIDGET_KEY] = reviewer()


def permitted(actor: str, kind: str, acts: tuple[str, ...]) -> dict[str, bool]:
    """Which of `acts` the person may do on runs of `kind` (engine/identity.py: everyone may
    while no role is configured). The service checks again; this only greys buttons out."""
    if not actor:
        return dict.fromkeys(acts, False)
    from db.session import session_scope
    from engine.identity import can

    with session_scope() as s:
        return {a: can(actor, a, kind, session=s) for a in acts}


def role_hint(actor: str, kind: str, act: str) -> str:
    from engine.identity import ROLES, allowed, roles_of

    mine = sorted(roles_of(actor))
    needed = " or ".join(r for r in ROLES if allowed({r}, act, kind))
    has = f"your roles: {', '.join(mine)}" if mine else "you have no role yet"
    return f"Some acts need another role ({has}; {act} needs {needed}). Ask an admin."


def roles_line(actor: str) -> str:
    """The sidebar's line about what the named person may do."""
    from db.session import session_scope
    from engine.identity import roles_configured, roles_of

    with session_scope() as s:
        if not roles_configured(s):
            return "No roles are set up yet: everyone may act."
        mine = sorted(roles_of(actor, session=s))
    return f"Roles: {', '.join(mine)}" if mine else "No role yet: you can read, not act."
