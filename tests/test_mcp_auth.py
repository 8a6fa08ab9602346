"""MCP over HTTP needs a bearer token: 401 without one (or with a wrong or revoked one); acts
done with a token are recorded under the token's name, verified. The first start without
DRAFTROOM_MCP_TOKEN makes a token and prints it once; only its hash is stored."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlmodel import select

from db.models import ApiToken
from db.session import reset_engines, session_scope
from engine import views
from engine.mcp_token import create_token, hash_token, revoke_token
from tests.test_mcp import ROOT, call, free_port, server_env

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream"}


def start(db_url: str, log: Path, **env: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "engine", "mcp", "--http", str(port),
                                 "--worker"], env={**server_env(db_url), **env}, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx2.get(f"http://127.0.0.1:{port}/", timeout=0.5)
            return proc, port
        except httpx2.HTTPError:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)


def post(port: int, token: str | None) -> httpx2.Response:
    auth = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx2.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers={**HEADERS, **auth},
                       timeout=10)


def client(port: int, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(120))
    return Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http))


def test_http_needs_a_token_and_acts_carry_its_name(db_url: str, tmp_path: Path) -> None:
    token = "a-long-shared-secret-from-the-environment-0123456789"
    proc, port = start(db_url, tmp_path / "server.log", DRAFTROOM_MCP_TOKEN=token,
                       DRAFTROOM_MCP_TOKEN_NAME="clinic-bot")
    try:
        assert post(port, None).status_code == 401
        assert post(port, "wrong").status_code == 401
        assert post(port, token).status_code == 200

        async def session() -> int:
            async with client(port, token) as c:
                run = await call(c, "create_protocol", intent="Help with exam panic",
                                 requested_by="typed name", wait=True)
                await call(c, "approve", run_id=run["id"], reviewer="dr_smith")
                return int(run["id"])

        run_id = asyncio.run(asyncio.wait_for(session(), timeout=120))
        reset_engines()
        d = views.get_run(run_id)
        assert d.created_by == "clinic-bot"
        assert [(a.actor, a.verified, a.action) for a in d.actions] == [
            ("clinic-bot", True, "approve")]
        with session_scope() as s:  # the secret itself is nowhere in the database
            row = s.exec(select(ApiToken)).one()
            assert row.token_hash == hash_token(token) and token not in row.model_dump_json()
        revoke_token(name="clinic-bot", actor="admin")
        assert post(port, token).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert token not in (tmp_path / "server.log").read_text()


def test_first_start_makes_a_token_and_prints_it_once(db_url: str, tmp_path: Path) -> None:
    proc, port = start(db_url, tmp_path / "first.log")
    try:
        printed = re.findall(r"Bearer (drm_\S+)", (tmp_path / "first.log").read_text())
        assert len(printed) == 1
        assert post(port, None).status_code == 401
        assert post(port, printed[0]).status_code == 200
        other = create_token(name="night shift", actor="admin")
        assert post(port, other).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    proc, port = start(db_url, tmp_path / "second.log")  # a token exists: nothing printed
    try:
        assert "Bearer" not in (tmp_path / "second.log").read_text()
        assert post(port, printed[0]).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)
