"""Draftroom over the Model Context Protocol (the official `mcp` SDK, 2.x MCPServer).

`python -m engine mcp` serves on stdio; `--http PORT` serves streamable HTTP on 127.0.0.1.
Every tool goes through the same services and validation as the pages; a service's refusal
(invalid input, a safety flag blocking approval, a wrong state) comes back as a tool error
with its message. Runs are queued like any other: pass wait=true to drive one here until it
waits for a person, or start the server with --worker (or run `python -m engine worker`)."""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import BlobResourceContents, EmbeddedResource, TextContent
from pydantic import Field, field_validator

from engine import run_list, service, views
from engine.errors import ApprovalBlocked, InvalidInput, ServiceError
from engine.exports.formats import export
from engine.mcp_token import mcp_actor
from engine.pipelines.protocol.models import ExerciseType, ProtocolInput
from engine.pipelines.registry import PIPELINES
from engine.run_state import RunStatus

log = logging.getLogger("draftroom.mcp")

WAIT_SECONDS = 600.0
INSTRUCTIONS = """Draftroom: agents draft CBT exercises (protocols) and marketing campaigns,
critics score them, and a person approves. Start a run with create_protocol (or
create_campaign), pass wait=true to get it back once it waits for review, read it with
get_run, then approve (a reviewer name is required; open safety flags block approval unless
an override_reason is given) or request_revision with a comment. export_run returns the
approved text (Markdown, or a PDF handout for protocols). The resource
draftroom://runs/{run_id}/approved.md holds a run's approved draft."""


class DraftOut(views.DraftBase):
    flags: list[str]
    """Open flags on this version as "category: quoted text"."""


class RunOut(views.RunGate):
    max_iterations: int
    error: str | None
    latest_draft: DraftOut | None
    approved_version: int | None
    parent_run_id: int | None
    next: str
    """What can be done with the run now."""


class RunItem(views.RunGate):
    created_by: str
    updated_at: str

    @field_validator("updated_at", mode="before")
    @classmethod
    def _iso(cls, value: object) -> object:
        return value.isoformat() if isinstance(value, datetime) else value


def _next(d: views.RunDetail) -> str:
    if d.status == RunStatus.REVIEW:
        gate = (" (open safety flags: approval needs an override_reason)"
                if d.open_flags else "")
        return f"waiting for a person: approve{gate} or request_revision"
    if d.status == RunStatus.QUEUED:
        return ("queued: a worker drives it (python -m engine worker, or this server with "
                "--worker); or call a tool with wait=true")
    if d.status == RunStatus.RUNNING:
        return "agents are working; call get_run again shortly"
    if d.status == RunStatus.APPROVED:
        return "approved: export_run, or read draftroom://runs/{id}/approved.md".replace(
            "{id}", str(d.id))
    if d.status == RunStatus.FAILED:
        return f"failed: {d.error or 'see the run page'}; a person can retry it"
    return "rejected: nothing more to do"


def run_out(run_id: int) -> RunOut:
    d = views.get_run(run_id)
    cur = d.current
    latest = None if cur is None else views.from_row(
        DraftOut, cur, flags=[f"{f.category}: {f.text}" for f in cur.flags if f.blocking])
    approved = d.draft(d.approved_draft_id)
    return views.from_row(RunOut, d, latest_draft=latest,
                          approved_version=approved.version if approved else None, next=_next(d))


def drive(run_id: int, timeout: float = WAIT_SECONDS) -> None:
    """Drive a queued run here until it waits for a person; if another worker holds it,
    wait (polling) until it stops being active or the timeout passes."""
    from engine.loop.worker import Worker

    if Worker().run_given(run_id) is not None:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if views.get_run(run_id).status not in RunStatus.ACTIVE:
            return
        time.sleep(0.25)


def _call(fn, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-untyped-def]
    """Run a service; its refusals become tool errors with the service's message."""
    try:
        return fn(*args, **kwargs)
    except ApprovalBlocked as exc:
        raise ToolError(str(exc).replace("Give an override reason",
                                         "Pass override_reason")) from None
    except ServiceError as exc:
        raise ToolError(str(exc)) from None


def _start(kind: str, data: dict[str, Any], requested_by: str,
           max_iterations: int | None, wait: bool) -> RunOut:
    params = {"max_iterations": max_iterations} if max_iterations else {}
    who, _verified = mcp_actor(requested_by)  # over HTTP: the bearer token's name
    run_id = _call(service.start_run, kind=kind, input=data, actor=who, params=params)
    if wait:
        drive(run_id)
    return run_out(run_id)


Who = Annotated[str, Field(description="Your name, as recorded in the audit trail (over HTTP "
                                       "the bearer token's name is recorded instead).")]
RunId = Annotated[int, Field(description="The run's id.")]
Wait = Annotated[bool, Field(description="Drive the run here until it waits for a person "
                                         "(may take a while with a real model).")]


def _field_doc(name: str) -> str:
    f = ProtocolInput.model_fields[name]
    return f.description or name


def build_server(*, http_port: int | None = None) -> MCPServer:
    """The server; for HTTP (http_port) every request needs a bearer token (engine/mcp_token.py)
    and the SDK answers 401 without one."""
    auth: dict[str, Any] = {}
    if http_port is not None:
        from mcp.server.auth.settings import AuthSettings

        from engine.mcp_token import DraftroomTokenVerifier

        url = f"http://127.0.0.1:{http_port}"
        auth = {"token_verifier": DraftroomTokenVerifier(),
                "auth": AuthSettings(issuer_url=url, resource_server_url=None)}
    server = MCPServer("draftroom", instructions=INSTRUCTIONS, version="0.1.0", **auth)

    @server.tool(description="Start drafting a CBT exercise (a protocol run). Inputs are "
                             "checked like the Start page's form.")
    def create_protocol(
        intent: Annotated[str, Field(description=_field_doc("intent"))],
        audience: Annotated[str, Field(description="Who will do the exercise.")] = "adults",
        exercise_type: Annotated[ExerciseType | None,
                                 Field(description=_field_doc("exercise_type"))] = None,
        requested_by: Who = "mcp",
        max_iterations: Annotated[int | None, Field(description="Drafts the agents may write "
                                                    "before a person looks (1-20).")] = None,
        wait: Wait = False,
    ) -> RunOut:
        data = {"intent": intent, "audience": audience, "exercise_type": exercise_type}
        return _start("protocol", data, requested_by, max_iterations, wait)

    @server.tool(description=_campaign_description())
    def create_campaign(
        campaign: Annotated[dict[str, Any], Field(description="The campaign brief; its fields "
                                                  "are listed in this tool's description.")],
        requested_by: Who = "mcp",
        max_iterations: Annotated[int | None, Field(description="Per stage, 1-20.")] = None,
        wait: Wait = False,
    ) -> RunOut:
        if "campaign" not in PIPELINES:
            raise ToolError("Campaigns are not available on this Draftroom yet (no campaign "
                            "pipeline is registered); create_protocol works.")
        return _start("campaign", campaign, requested_by, max_iterations, wait)

    @server.tool(description="A run's status, stage, iteration, latest draft with its scores "
                             "and open flags, and what can be done next.")
    def get_run(run_id: RunId) -> RunOut:
        return _call(run_out, run_id)

    @server.tool(description="Runs waiting for a person, oldest update first.")
    def list_awaiting_review(
        kind: Annotated[Literal["protocol", "campaign"] | None,
                        Field(description="Only this kind of run.")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
    ) -> list[RunItem]:
        runs = run_list.list_runs(kind=kind, statuses=[RunStatus.REVIEW], limit=limit)
        return [RunItem.model_validate(r, from_attributes=True)
                for r in sorted(runs, key=lambda r: r.updated_at)]

    @server.tool(description="Approve a run's version (default: the latest) as the reviewer "
                             "named. Refused while a safety flag is open on it unless an "
                             "override_reason is given; recorded in the audit trail.")
    def approve(
        run_id: RunId,
        reviewer: Annotated[str, Field(description="Who approves (required).")],
        version: Annotated[int | None, Field(description="The version to approve.")] = None,
        override_reason: Annotated[str | None, Field(description="Why approve despite open "
                                                     "safety flags.")] = None,
        wait: Wait = False,
    ) -> RunOut:
        draft_id = _call(_draft_id, run_id, version)
        who, verified = mcp_actor(reviewer)
        _call(service.approve, run_id=run_id, actor=who, verified=verified, draft_id=draft_id,
              override_reason=override_reason)
        if wait and views.get_run(run_id).status == RunStatus.QUEUED:
            drive(run_id)  # a multi-stage run moves on to its next stage
        return run_out(run_id)

    @server.tool(description="Send a run back to the drafter with a comment; the loop "
                             "resumes with a fresh iteration budget.")
    def request_revision(
        run_id: RunId,
        reviewer: Annotated[str, Field(description="Who asks (required).")],
        comment: Annotated[str, Field(description="What to change (required).")],
        wait: Wait = False,
    ) -> RunOut:
        who, verified = mcp_actor(reviewer)
        _call(service.request_revision, run_id=run_id, actor=who, verified=verified,
              comment=comment)
        if wait:
            drive(run_id)
        return run_out(run_id)

    @server.tool(structured_output=False,
                 description="Export a run: Markdown (the approved version, or the latest "
                             "marked as not approved); PDF (a protocol's handout, a campaign's "
                             "plan) returned as an embedded application/pdf resource; for a "
                             "campaign, CSV with one row per creator and channel.")
    def export_run(
        run_id: RunId,
        format: Annotated[Literal["markdown", "pdf", "csv"],
                          Field(description="markdown, pdf, or csv (campaigns)")]
        = "markdown",
    ) -> list[TextContent | EmbeddedResource]:
        data = _call(_export, run_id, format)
        if isinstance(data, str):
            return [TextContent(type="text", text=data)]
        pdf = data
        uri = f"draftroom://runs/{run_id}/approved.pdf"
        return [TextContent(type="text", text=f"PDF handout of run {run_id}, {len(pdf):,} "
                                              f"bytes ({uri})."),
                EmbeddedResource(type="resource", resource=BlobResourceContents(
                    uri=uri, mime_type="application/pdf",
                    blob=base64.b64encode(pdf).decode()))]

    @server.resource("draftroom://runs/{run_id}/approved.md", name="approved_draft",
                     mime_type="text/markdown",
                     description="A run's approved draft as Markdown, with approver and date.")
    def approved_markdown(run_id: str) -> str:
        rid = _resource_run_id(run_id)
        try:
            d = views.get_run(rid)
        except ServiceError as exc:
            raise ResourceError(str(exc)) from None
        if d.approved_draft_id is None:
            raise ResourceError(f"Run {rid} has no approved draft yet (it is "
                                f"{d.status.replace('_', ' ')}).")
        return str(export(d, "markdown"))

    @server.resource("draftroom://runs/{run_id}/approved.pdf", name="approved_handout",
                     mime_type="application/pdf",
                     description="An approved protocol as a print-ready PDF handout.")
    def approved_pdf(run_id: str) -> bytes:
        from engine.exports.pdf import protocol_handout

        try:
            return protocol_handout(views.get_run(_resource_run_id(run_id)), approved_only=True)
        except ServiceError as exc:
            raise ResourceError(str(exc)) from None

    return server


def _resource_run_id(text: str) -> int:
    if not text.isdigit():
        raise ResourceError(f"{text!r} is not a run id.")
    return int(text)


def _draft_id(run_id: int, version: int | None) -> int | None:
    if version is None:
        return None
    d = views.get_run(run_id)
    found = next((x.id for x in d.drafts if x.version == version), None)
    if found is None:
        have = ", ".join(f"v{x.version}" for x in d.drafts) or "none"
        raise InvalidInput(f"Run {run_id} has no version {version} (it has {have}).")
    return found


def _export(run_id: int, fmt: str) -> str | bytes:
    """The run in this format (NotFound, or InvalidInput naming the formats its kind offers)."""
    return export(views.get_run(run_id), fmt)


def _campaign_description() -> str:
    text = ("Start a marketing campaign run. `campaign` is checked like the Start page's "
            "campaign form.")
    pipeline = PIPELINES.get("campaign")
    if pipeline is None:
        return text + " Not available yet on this server (no campaign pipeline registered)."
    schema = pipeline.input_model.model_json_schema()
    return text + " Its JSON schema: " + json.dumps(schema, separators=(",", ":"))[:4000]


def _start_worker() -> threading.Event:
    from engine.loop.worker import Worker

    stop = threading.Event()
    worker = Worker()
    threading.Thread(target=worker.run_forever, args=(stop,), name="draftroom-mcp-worker",
                     daemon=True).start()
    log.info("worker %s drives queued runs in this process", worker.worker_id)
    return stop


def serve(*, http_port: int | None = None, worker: bool = False) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP)."""
    from db.session import get_engine

    server = build_server(http_port=http_port)
    # fpdf2 subsets fonts through fontTools, which logs every table at INFO.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    # The MCP SDK logs at INFO to stderr, where a stdio client shows every line: Alembic's
    # "Context impl SQLiteImpl." on each start is noise to it.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    # The schema is made here, once, before a worker thread and request threads could
    # both try to create it.
    get_engine()
    stop = _start_worker() if worker else None
    try:
        if http_port is None:
            server.run("stdio")
        else:
            _announce_token()
            server.run("streamable-http", host="127.0.0.1", port=http_port)
    finally:
        if stop is not None:
            stop.set()


def _announce_token() -> None:
    """At an HTTP server's first start, its new bearer token, printed once (never logged)."""
    import sys

    from engine.mcp_token import ensure_http_token

    made = ensure_http_token()
    if made:
        name, token = made
        print("MCP over HTTP needs a bearer token. This one was made now and is shown once "
              "(only its hash is kept):\n"
              f"  Authorization: Bearer {token}\n"
              f"Acts done with it are recorded as {name!r}. More tokens: "
              "python -m engine mcp-token new NAME", file=sys.stderr, flush=True)
