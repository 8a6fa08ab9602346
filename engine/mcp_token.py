"""Bearer tokens for MCP over HTTP (stdio needs none: whoever starts the process owns it).

A token is a random secret shown once; only its SHA-256 is stored (ApiToken), which is enough
for a 256-bit random secret (no password to stretch). The HTTP server accepts a request only
with `Authorization: Bearer <token>` of an active token (the SDK answers 401 otherwise), and
every act done through it is recorded with the token's name as the actor, verified.

Where the first token comes from: DRAFTROOM_MCP_TOKEN (its name: DRAFTROOM_MCP_TOKEN_NAME,
default "mcp"), stored hashed at start; else, when no token exists yet, one is made at the
first start and printed once to stderr. More: `python -m engine mcp-token new NAME`."""

from __future__ import annotations

import hashlib
import secrets

from pydantic import BaseModel
from sqlmodel import Session, select

from db.models import ApiToken
from db.session import session_scope
from engine.config import settings
from engine.errors import InvalidInput
from engine.identity import person_key, require
from engine.text import clean_text

__all__ = ["hash_token", "create_token", "revoke_token", "list_tokens", "token_name",
           "ensure_http_token", "TokenInfo", "DraftroomTokenVerifier", "mcp_actor"]

PREFIX = "drm_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenInfo(BaseModel):
    name: str
    revoked: bool
    created_by: str
    created_at: object


def _name(name: str) -> str:
    clean = " ".join(clean_text(name or "").split())
    if not clean:
        raise InvalidInput("Give the token a name (it is recorded as the actor).",
                           {"name": "is required"})
    if len(clean) > 120:
        raise InvalidInput("A token's name must be at most 120 characters.", {"name": "too long"})
    return clean


def _store(s: Session, name: str, token: str, created_by: str) -> None:
    if s.exec(select(ApiToken).where(ApiToken.name == name)).first() is not None:
        raise InvalidInput(f"A token named {name!r} exists; revoke it or pick another name.",
                           {"name": "exists"})
    s.add(ApiToken(name=name, token_hash=hash_token(token), created_by=created_by))


def create_token(*, name: str, actor: str) -> str:
    """A new token (returned once, never stored); only an admin may (anyone before roles)."""
    clean = _name(name)
    token = PREFIX + secrets.token_urlsafe(32)
    with session_scope() as s:
        require(actor, "manage_roles", session=s)
        _store(s, clean, token, person_key(actor))
    return token


def revoke_token(*, name: str, actor: str) -> None:
    with session_scope() as s:
        require(actor, "manage_roles", session=s)
        row = s.exec(select(ApiToken).where(ApiToken.name == _name(name))).first()
        if row is None:
            raise InvalidInput(f"No token named {name!r}.", {"name": "unknown"})
        row.revoked = True
        s.add(row)


def list_tokens() -> list[TokenInfo]:
    with session_scope() as s:
        rows = s.exec(select(ApiToken).order_by(ApiToken.name)).all()
        return [TokenInfo(name=r.name, revoked=r.revoked, created_by=r.created_by,
                          created_at=r.created_at) for r in rows]


def token_name(token: str) -> str | None:
    """The name of the active token `token`, or None."""
    if not token:
        return None
    with session_scope() as s:
        row = s.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token),
                                            ApiToken.revoked == False)).first()  # noqa: E712
        return row.name if row else None


def ensure_http_token() -> tuple[str, str] | None:
    """At an HTTP server's start: store DRAFTROOM_MCP_TOKEN's hash if it is set, or make the
    first token when none is active. Returns (name, token) to print once (a new one), else
    None."""
    given = settings().mcp_token or ""
    with session_scope() as s:
        if given:
            if token_name(given) is None:
                name = _name(settings().mcp_token_name or "mcp")
                _store(s, name, given, "DRAFTROOM_MCP_TOKEN")
            return None
        if s.exec(select(ApiToken.id).where(ApiToken.revoked == False)).first():  # noqa: E712
            return None
        token = PREFIX + secrets.token_urlsafe(32)
        base, n = "mcp", 1
        while s.exec(select(ApiToken.id).where(ApiToken.name == base)).first():
            n += 1
            base = f"mcp-{n}"
        _store(s, base, token, "first start")
        return base, token


class DraftroomTokenVerifier:
    """The SDK's TokenVerifier: an active token's name becomes the request's client id."""

    async def verify_token(self, token: str):  # type: ignore[no-untyped-def]
        from anyio import to_thread
        from mcp.server.auth.provider import AccessToken

        name = await to_thread.run_sync(token_name, token)
        if name is None:
            return None
        return AccessToken(token=token, client_id=name, scopes=[])


def mcp_actor(typed: str) -> tuple[str, bool]:
    """Who acts in an MCP tool call: the bearer token's name (verified) over HTTP; the name
    the client typed (unverified) over stdio, where there is no token."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    if token is not None:
        return token.client_id, True
    return typed, False
