"""Issue 15's creator items on a campaign run made through the services (offline backend):
the directory is offered best match first with reasons, adding a creator the campaign cannot
reach on their own channel warns and the plan then names the same channel as the shortlist,
"Also considered" shows every column as wrapping lines, and the messages CSV has plain text
where an email has Markdown."""

from __future__ import annotations

import csv
import io
import re

from streamlit.testing.v1 import AppTest

from db.session import session_scope
from engine import service, views
from engine.exports.campaign import messages_csv
from engine.markdown import table_rows
from engine.pipelines.campaign.creators import lookup, parse_shortlist
from engine.pipelines.campaign.outreach import parse_outreach
from engine.pipelines.campaign.text import sections
from engine.shortlist import directory_matches
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start
from tests.test_campaign_ui import _view_app


def plain(markdown: str) -> str:
    """Markdown as a person reads it: escapes dropped (escape_inline escapes . , ' ( ) ...)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _creators_stage(**over) -> tuple[int, views.RunDetail, AppTest]:  # type: ignore[no-untyped-def]
    run_id = start(**over)
    drive(run_id)
    d = approve_and_advance(run_id)
    assert d.stage == "creators"
    at = AppTest.from_function(_view_app, default_timeout=60)
    at.session_state["run_id"] = run_id
    at.run()
    assert not at.exception
    return run_id, d, at


def test_the_directory_is_offered_best_match_first_with_reasons(db_url: str) -> None:
    run_id, d, at = _creators_stage()
    picker = at.multiselect(key=f"sl_add_{d.current_draft_id}")
    handles = list(picker.options)
    shortlisted = [h for h, _ in parse_shortlist(d.current.content)]  # type: ignore[union-attr]
    ranked = directory_matches(run_id, exclude=shortlisted)
    assert handles == [m.creator.handle for m in ranked] != sorted(handles)
    why = next(e for e in at.expander if e.label.startswith("Why this order"))
    lines = [plain(line) for line in why.markdown[0].value.splitlines()]
    pcts = [int(line.split("** ")[1].split("%")[0]) for line in lines]
    assert pcts == sorted(pcts, reverse=True) and pcts[0] > pcts[-1]
    best = lines[0]
    assert best.startswith(f"- **{ranked[0].creator.handle}** ")
    assert "on the campaign's topics" in best  # the reasons, not only a number


def test_an_off_channel_creator_warns_and_the_plan_agrees_with_the_shortlist(
        db_url: str) -> None:
    run_id, d, at = _creators_stage(channels=["email", "sms"])
    shortlisted = [h for h, _ in parse_shortlist(d.current.content)]  # type: ignore[union-attr]
    off = next(m.creator for m in directory_matches(run_id, exclude=shortlisted)
               if m.creator.contact_channel == "instagram_dm")
    picker = at.multiselect(key=f"sl_add_{d.current_draft_id}")
    assert any(off.handle in plain(c.value) for c in at.caption
               if "Not on this campaign's channels" in c.value)
    picker.set_value([off.handle])
    at.button[-1].click().run()
    assert not at.exception
    warned = [plain(w.value) for w in at.warning if off.handle in plain(w.value)]
    assert warned and "Instagram DM" in warned[0] and "by Email" in warned[0]

    drive(run_id)
    d = views.get_run(run_id)
    rows = {r[1]: r for r in table_rows(sections(d.current.content)["shortlist"])}  # type: ignore[union-attr]
    assert rows[off.handle][8] == "Email"  # the Contact column: how the campaign reaches them
    at.run()
    card = next(plain(m.value) for m in at.markdown
                if "Instagram DM is not one of" in plain(m.value))
    assert "contact by Email" in card
    approve_and_advance(run_id)  # outreach
    plan = approve_and_advance(run_id)
    assert plan.stage == "plan"
    deliverables = table_rows(sections(plan.current.content)["deliverables per creator"])  # type: ignore[union-attr]
    via = {r[0].split(" ")[0]: r[-1] for r in deliverables}
    assert via[off.handle] == "Email"
    with session_scope() as s:
        assert lookup(s, [off.handle])[off.handle].contact_channel == "instagram_dm"


def test_also_considered_shows_every_column_as_lines(db_url: str) -> None:
    _, d, at = _creators_stage()
    others = table_rows(next(b for k, b in sections(d.current.content).items()  # type: ignore[union-attr]
                             if "also considered" in k))
    assert others
    block = next(plain(m.value) for m in at.markdown
                 if m.value.startswith("**Also considered**"))
    for row in others:
        line = next(x for x in block.splitlines() if row[0] in x)
        assert f"match {row[3]}".replace("%", "") in line.replace("%", "")
    assert not at.dataframe  # the grid that cut the match and notes off


def test_the_messages_csv_is_plain_text(db_url: str) -> None:
    run_id, d, _ = _creators_stage(channels=["email", "sms"])
    d = approve_and_advance(run_id)  # outreach
    doc = parse_outreach(d.current.content)  # type: ignore[union-attr]
    email = next(m for m in doc.messages if m.channel == "email")
    body = d.current.content  # type: ignore[union-attr]
    marked = body[:email.start] + body[email.start:email.end].replace(
        "Hi ", "Hi **dear** ", 1) + body[email.end:]
    assert "**dear**" in marked
    service.edit(run_id=run_id, actor=ACTOR, content=marked, expected_version=d.version)
    d = views.get_run(run_id)
    rows = list(csv.DictReader(io.StringIO(messages_csv(d))))
    emails = [r for r in rows if r["channel"] == "Email"]
    assert emails and not any("**" in r["text"] for r in emails)
    assert any("dear" in r["text"] for r in emails)
