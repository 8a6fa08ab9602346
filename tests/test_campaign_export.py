"""Exports of a campaign: the plan with every message as sent, and a CSV per creator and
channel."""

from __future__ import annotations

import csv
import io

from engine import service, views
from engine.exports.formats import export
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start


def test_an_approved_campaign_exports_plan_and_messages(db_url: str) -> None:
    run_id = start(channels=["sms", "email", "teams"])
    drive(run_id)
    for _ in range(3):
        approve_and_advance(run_id)
    before = str(export(views.get_run(run_id), "markdown"))
    assert "The plan is not approved yet" in before
    service.approve(run_id=run_id, actor=ACTOR)
    d = views.get_run(run_id)
    md = str(export(views.get_run(run_id), "markdown"))
    assert md.startswith("# Campaign plan: Alma Cafe")
    assert "## Deliverables per creator" in md and "## Messages" in md
    assert "Outreach v" in md and "(approved)" in md
    assert "Part 1 of " in md and "(1/" in md  # SMS parts with their markers
    assert "Card title" not in md  # Teams reaches colleagues: creators get no Teams card
    for stage in ("Brief", "Creators", "Outreach", "Plan"):
        assert f"- {stage}: v" in md and f"approved by {ACTOR}" in md
    rows = list(csv.DictReader(io.StringIO(export(views.get_run(run_id), "csv"))))
    plan = d.draft(d.approved_draft_id)
    handles = {r["creator_handle"] for r in rows}
    assert len(rows) == 6 and len(handles) == 3  # SMS and email each: no Teams for creators
    assert all(f"| {h} (" in plan.content for h in handles)  # type: ignore[union-attr]
    assert {r["channel"] for r in rows} == {"SMS", "Email"}
    sms = next(r for r in rows if r["channel"] == "SMS")
    assert "**" not in sms["text"] and int(sms["parts"]) >= 2 and sms["limit"] == "1600"
    email = next(r for r in rows if r["channel"] == "Email")
    assert email["subject"].startswith("Paid collaboration with Alma Cafe")
    assert all(r["approved"] == "yes" and r["problems"] == "" for r in rows)


def test_export_before_outreach_says_so(db_url: str) -> None:
    run_id = start()
    drive(run_id)
    assert "No outreach messages yet." in str(export(views.get_run(run_id), "markdown"))
    assert export(views.get_run(run_id), "csv").strip() == (
        "creator_handle,creator_name,channel,subject,text,parts,characters,limit,problems,"
        "outreach_version,approved")
