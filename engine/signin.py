"""Whether sign-in (Streamlit's OIDC `[auth]`) is configured for this install: then acts need
a verified name (a login, an MCP token, the operating system's login on the command line) and
typed names are refused. Read from the same secrets.toml files Streamlit reads, or forced with
DRAFTROOM_REQUIRE_SIGNIN=1 (e.g. when the secrets come from elsewhere)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.config import setting
from engine.errors import PermissionDenied

__all__ = ["PROVIDER_KEYS", "auth_problem", "require_verified", "secrets_files",
           "signin_configured"]

PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")


def secrets_files(cwd: Path | None = None) -> list[Path]:
    """Where Streamlit reads secrets.toml from, the later overriding the earlier."""
    return [Path.home() / ".streamlit" / "secrets.toml",
            (cwd or Path.cwd()) / ".streamlit" / "secrets.toml"]


def _auth_section(cwd: Path | None) -> dict[str, Any]:
    auth: dict[str, Any] = {}
    for path in secrets_files(cwd):
        try:
            with path.open("rb") as fh:
                section = tomllib.load(fh).get("auth")
        except (OSError, tomllib.TOMLDecodeError):
            continue  # no file, or one Streamlit could not read either
        if isinstance(section, Mapping):
            auth.update(section)
    return auth


def auth_problem(cwd: Path | None = None) -> str | None:
    """What sign-in lacks, as Streamlit's st.login would find it; None when configured. The
    one definition: the launcher refuses a public address on it (engine/interfaces/serve.py)
    and acts need a verified name by it (signin_configured)."""
    auth = _auth_section(cwd)
    if not auth:
        return "there is no [auth] section in .streamlit/secrets.toml"
    missing = [k for k in ("redirect_uri", "cookie_secret") if not auth.get(k)]
    providers = [v for v in auth.values() if isinstance(v, Mapping)] or [auth]
    if not any(all(p.get(k) for k in PROVIDER_KEYS) for p in providers):
        missing.append("a provider's " + ", ".join(PROVIDER_KEYS))
    return f"[auth] lacks {'; '.join(missing)}" if missing else None


def signin_configured(cwd: Path | None = None) -> bool:
    """DRAFTROOM_REQUIRE_SIGNIN when set; else whether [auth] is complete enough for
    st.login (a half-written section signs nobody in, so it cannot require a login)."""
    forced = setting("require_signin")
    if forced is not None:
        return bool(forced)
    return auth_problem(cwd) is None


def require_verified(actor: str, verified: bool) -> None:
    """Refuse an act by a typed (unverified) name when sign-in is configured."""
    if not verified and signin_configured():
        raise PermissionDenied(
            f"Sign-in is configured here, so acts need a verified name: {actor!r} was typed, "
            "not signed in. Sign in (the app), use your MCP token, or act on the command line "
            "as your own login.")
