"""Who is acting. With OIDC configured (Streamlit's st.login, `[auth]` in secrets.toml) the
name comes from the login and acts are recorded as verified; otherwise it is the name typed in
the sidebar, marked unverified in the audit trail, and remembered by this browser in a cookie
(a reload or a new tab starts a new Streamlit session, which would otherwise forget it)."""

from __future__ import annotations

import json
from urllib.parse import unquote

import streamlit as st

from engine.identity import Identity, who
from engine.text import clean_text

KEY = "reviewer"
WIDGET_KEY = "reviewer_input"
COOKIE = "draftroom_reviewer"
MAX_NAME = 120
_PENDING = "_reviewer_cookie_pending"
MISSING_HINT = "Enter your name under **Reviewer** in the sidebar to act on runs."


def login_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets.toml at all
        return False


def _login() -> dict[str, object] | None:
    if not login_configured():
        return None
    try:
        return st.user.to_dict()
    except Exception:
        return None


def identity() -> Identity:
    if KEY not in st.session_state:
        st.session_state[KEY] = _remembered()
    me = who(_login(), str(st.session_state.get(KEY) or ""))
    if not me.verified and login_configured():
        return Identity("", False)  # with sign-in configured a typed name never acts
    return me


def _remembered() -> str:
    """The name this browser remembered, or ""; cleaned like a typed one."""
    try:
        raw = st.context.cookies.get(COOKIE) or ""
    except Exception:  # no browser behind this session (AppTest, bare mode)
        return ""
    return clean_text(unquote(raw)).strip()[:MAX_NAME]


def reviewer() -> str:
    return identity().name


def acting() -> dict[str, object]:
    """The actor arguments of a service act: the name, and whether a login vouches for it."""
    me = identity()
    return {"actor": me.name, "verified": me.verified}


def sync_from_widget() -> None:
    """on_change of the sidebar field: keep the name under a key Streamlit never cleans up
    (widget state is dropped when a page switch re-creates the widget)."""
    st.session_state[KEY] = str(st.session_state.get(WIDGET_KEY) or "").strip()
    st.session_state[_PENDING] = True


def remember_in_browser() -> None:
    """After the name changed: store it in this browser's cookie (or forget it when cleared),
    by a script that runs in the page. The name is a JSON string literal with <, > and &
    escaped, so no name can close the script or inject markup."""
    if not st.session_state.pop(_PENDING, False):
        return
    name = json.dumps(str(st.session_state.get(KEY) or ""))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        name = name.replace(ch, esc)
    st.html(f"<script>(() => {{ const n = {name}; document.cookie = '{COOKIE}=' + "
            "encodeURIComponent(n) + '; path=/; SameSite=Strict; max-age=' + "
            "(n ? 31536000 : 0); })();</script>", unsafe_allow_javascript=True)

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
