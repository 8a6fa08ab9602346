"""Whether sign-in (Streamlit's OIDC `[auth]`) is configured for this install: then acts need
a verified name (a login, an MCP token, the operating system's login on the command line) and
typed names are refused. Read from the same secrets.toml files Streamlit reads, or forced with
DRAFTROOM_REQUIRE_SIGNIN=1 (e.g. when the secrets come from elsewhere)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from engine.config import setting
from engine.errors import PermissionDenied

__all__ = ["signin_configured", "require_verified"]


def _secrets_files() -> list[Path]:
    return [Path.home() / ".streamlit" / "secrets.toml", Path.cwd() / ".streamlit" / "secrets.toml"]


def signin_configured() -> bool:
    forced = setting("require_signin")
    if forced is not None:
        return forced
    for path in _secrets_files():
        try:
            if "auth" in tomllib.loads(path.read_text()):
                return True
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return False


def require_verified(actor: str, verified: bool) -> None:
    """Refuse an act by a typed (unverified) name when sign-in is configured."""
    if not verified and signin_configured():
        raise PermissionDenied(
            f"Sign-in is configured here, so acts need a verified name: {actor!r} was typed, "
            "not signed in. Sign in (the app), use your MCP token, or act on the command line "
            "as your own login.")
