"""The MCP server end to end with the SDK's own client: `python -m engine mcp` as a subprocess
over stdio (and once over streamable HTTP), a temporary database, the offline backend."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from engine import service, views
from engine.llm.offline.backend import OfflineBackend
from engine.loop.leases import claim_run
from engine.loop.supervisor import Supervisor
from engine.pipelines.registry import PIPELINES

ROOT = Path(__file__).resolve().parent.parent
UNSAFE = "\n\n## Extra\n\nStop taking your medication when you feel calmer.\n"


def server_env(db_url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": db_url, "DRAFTROOM_BACKEND": "offline",
            "PYTHONPATH": str(ROOT)}


def stdio(db_url: str) -> Client:
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "engine", "mcp"],
                                        env=server_env(db_url), cwd=str(ROOT)),
                  read_timeout_seconds=120)


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    r = await client.call_tool(tool, args)
    assert not r.is_error, r.content[0].text  # type: ignore[union-attr]
    return r.structured_content  # type: ignore[return-value]


async def refused(client: Client, tool: str, **args: Any) -> str:
    r = await client.call_tool(tool, args)
    assert r.is_error, f"{tool} should have been refused"
    return r.content[0].text  # type: ignore[union-attr]


def test_round_trip_over_stdio(db_url: str) -> None:
    async def session() -> None:
        async with stdio(db_url) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert tools == {"create_protocol", "create_campaign", "get_run",
                             "list_awaiting_review", "approve", "request_revision",
                             "export_run"}

            run = await call(c, "create_protocol", intent="Help a student manage exam panic",
                             audience="adult students", requested_by="claude", wait=True)
            rid = run["id"]
            assert run["status"] == "awaiting_review" and run["latest_draft"]["content"]
            assert run["scores"].keys() == {"safety", "empathy", "clinical"}
            assert "approve" in run["next"]
            got = await call(c, "get_run", run_id=rid)
            assert got["latest_draft"]["version"] == run["latest_draft"]["version"]
            waiting = (await call(c, "list_awaiting_review"))["result"]
            assert [(w["id"], w["created_by"]) for w in waiting] == [(rid, "claude")]

            # Validation is the Start page's: same messages, nothing created.
            assert "intent must be at least 3 characters" in await refused(
                c, "create_protocol", intent="x")
            assert "does not exist" in await refused(c, "get_run", run_id=999)
            campaign = await refused(c, "create_campaign", campaign={"goal": "More brunch"})
            assert ("brand id is required" in campaign if "campaign" in PIPELINES
                    else "not available" in campaign)
            assert "reviewer name" in await refused(c, "approve", run_id=rid, reviewer=" ")

            # A person's unsafe edit (through the service, as the Run page would) closes the gate.
            cur = views.get_run(rid).current
            service.edit(run_id=rid, actor="dr. kim", content=cur.content + UNSAFE)  # type: ignore[union-attr]
            assert claim_run(rid, "t")
            Supervisor(OfflineBackend(), "t").run_until_idle(rid)
            gated = await call(c, "get_run", run_id=rid)
            assert gated["open_flags"] and any(f.startswith("medication")
                                               for f in gated["latest_draft"]["flags"])
            message = await refused(c, "approve", run_id=rid, reviewer="Dr. Lee")
            assert "open safety flag" in message and "override_reason" in message
            assert views.get_run(rid).status == "awaiting_review"

            sent = await call(c, "request_revision", run_id=rid, reviewer="Dr. Lee",
                              comment="Remove the medication advice.", wait=True)
            assert sent["status"] == "awaiting_review" and sent["open_flags"] == 0
            assert sent["latest_draft"]["author"] == "drafter"
            approved = await call(c, "approve", run_id=rid, reviewer="Dr. Lee")
            assert approved["status"] == "approved"
            assert approved["approved_version"] == sent["latest_draft"]["version"]
            trail = views.get_run(rid).actions
            assert [(a.actor, a.action) for a in trail][-2:] == [("Dr. Lee", "revise"),
                                                                ("Dr. Lee", "approve")]

            md = await c.call_tool("export_run", {"run_id": rid})
            assert "Approved by Dr. Lee" in md.content[0].text  # type: ignore[union-attr]
            pdf = await c.call_tool("export_run", {"run_id": rid, "format": "pdf"})
            blob = pdf.content[1].resource  # type: ignore[union-attr]
            assert blob.mime_type == "application/pdf"
            assert base64.b64decode(blob.blob)[:5] == b"%PDF-"
            res = await c.read_resource(f"draftroom://runs/{rid}/approved.md")
            assert res.contents[0].text.startswith("# ")  # type: ignore[union-attr]
            templates = await c.list_resource_templates()
            assert "draftroom://runs/{run_id}/approved.md" in {
                t.uri_template for t in templates.resource_templates}

            queued = await call(c, "create_protocol", intent="Help an adult with worry")
            assert queued["status"] == "queued" and "worker" in queued["next"]

    asyncio.run(asyncio.wait_for(session(), timeout=240))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_localhost_with_its_own_worker(db_url: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"  # a file, not a pipe: a full pipe would block the server
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "engine", "mcp", "--http", str(port),
                                 "--worker"], env={**server_env(db_url),
                                                   "DRAFTROOM_MCP_TOKEN": "test-token-0123456789"},
                                cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)

        async def session() -> None:
            from tests.test_mcp_auth import client  # MCP over HTTP needs a bearer token

            async with client(port, "test-token-0123456789") as c:
                run = await call(c, "create_protocol", intent="Help with exam panic", wait=True)
                assert run["status"] == "awaiting_review"
                # Without wait, the server's --worker picks the queued run up.
                queued = await call(c, "create_protocol", intent="Help with worry at night")
                for _ in range(300):
                    got = await call(c, "get_run", run_id=queued["id"])
                    if got["status"] == "awaiting_review":
                        break
                    await asyncio.sleep(0.2)
                assert got["status"] == "awaiting_review" and got["latest_draft"]

        asyncio.run(asyncio.wait_for(session(), timeout=120))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
