"""The campaign form and the campaign view (AppTest), and their pure helpers."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine import run_list, views
from engine.pipelines.campaign.creators import ShortlistEntry, parse_shortlist
from tests.test_campaign_pipeline import ACTOR, approve_and_advance, drive, start
from ui.campaign_view import creator_card, whatsapp_preview
from ui.markdown import escape_inline


def _form_app() -> None:
    import streamlit as st

    from ui.campaign_form import render_campaign_form

    run_id = render_campaign_form("mia")
    if run_id:
        st.success(f"started run {run_id}")


def _view_app() -> None:
    import streamlit as st

    from engine.views import get_run
    from ui.campaign_view import render_campaign_draft

    st.session_state.setdefault("reviewer", "mia (marketing)")
    detail = get_run(int(st.session_state.get("run_id", 1)))
    render_campaign_draft(detail, detail.current)


def test_whatsapp_preview_styles_markup_and_escapes_the_rest() -> None:
    out = whatsapp_preview("Hi *Maya*! _Soon_ ~gone~ [x](javascript:alert(1)) <b>1</b>")
    assert "**Maya**" in out and "_Soon_" in out and "~~gone~~" in out
    assert "\\[x\\]\\(javascript" in out and "\\<b\\>" in out


def test_creator_card_escapes_draft_text() -> None:
    card = creator_card(1, ShortlistEntry(handle="@x", name="[Evil](http://x)", platform="tiktok",
                                          reasons=":red[shout] <i>", match_pct=90))
    assert "\\[Evil\\]\\(http" in card and "\\:red\\[shout\\]" in card
    assert ":blue-badge[match 90%]" in card


def test_campaign_form_shows_field_errors_and_starts_a_run(db_url: str) -> None:
    at = AppTest.from_function(_form_app, default_timeout=30)
    at.run()
    assert not at.exception
    brand = at.selectbox(key="campaign_brand_id").value
    at.multiselect(key=f"c{brand}_channels").set_value([])
    at.button[-1].click().run()
    errors = [e.value for e in at.error]
    assert "Goal is required." in errors
    assert any(e.startswith("Channels choose at least one channel") for e in errors)
    assert not run_list.list_runs(kind="campaign")

    at.text_area(key=f"c{brand}_goal").set_value("Bring students in for brunch")
    at.multiselect(key=f"c{brand}_channels").set_value(["whatsapp", "teams"])
    at.button[-1].click().run()
    assert not at.error, [e.value for e in at.error]
    [run] = run_list.list_runs(kind="campaign")
    assert at.success[0].value == f"started run {run.id}"
    d = views.get_run(run.id)
    assert d.input["channels"] == ["whatsapp", "teams"] and d.input["brand_name"] == "Alma Cafe"
    assert d.created_by == "mia"


def test_the_view_draws_every_stage_and_changes_the_shortlist(db_url: str) -> None:
    run_id = start(channels=["sms", "email", "whatsapp", "teams", "instagram_dm"])
    drive(run_id)
    at = AppTest.from_function(_view_app, default_timeout=30)
    at.session_state["run_id"] = run_id
    at.run()
    assert not at.exception
    assert any("Campaign brief" in m.value for m in at.markdown)

    d = approve_and_advance(run_id)
    first = [h for h, _ in parse_shortlist(d.current.content)]  # type: ignore[union-attr]
    at.run()
    assert any(m.value.startswith(f"**1. {escape_inline(first[0])}**") for m in at.markdown)
    at.multiselect(key=f"sl_remove_{d.current_draft_id}").set_value([first[0]])
    at.button[-1].click().run()
    assert not at.exception
    drive(run_id)
    d = views.get_run(run_id)
    assert d.current.author == ACTOR  # type: ignore[union-attr]
    assert [h for h, _ in parse_shortlist(d.current.content)] == first[1:]  # type: ignore[union-attr]

    approve_and_advance(run_id)
    at.run()
    assert not at.exception
    assert [t.label for t in at.tabs] == first[1:]
    texts = [t.value for t in at.text]
    assert any(t.endswith("(1/3)") or t.endswith("(1/2)") for t in texts)  # SMS parts
    assert any("**Subject:**" in m.value for m in at.markdown)
    assert at.get("chat_message")  # SMS, WhatsApp and Instagram DM as message bubbles


def test_a_link_to_an_earlier_stage_version_shows_it_and_offers_no_acts_on_it(db_url: str) -> None:
    # Calibration links to a version (?version=N); when the run has moved past that version's
    # stage, the Run page showed the current version under the link's number (seen in Chromium).
    run_id = start()
    drive(run_id)
    brief = views.get_run(run_id).current
    assert brief is not None and brief.stage == "brief"
    d = approve_and_advance(run_id)
    assert d.stage == "creators"
    at = AppTest.from_file(str(Path(__file__).parents[1] / "app.py"), default_timeout=30)
    at.session_state["reviewer"] = ACTOR
    at.run()
    at.query_params["run"] = str(run_id)
    at.query_params["version"] = str(brief.version)
    at.switch_page("pages/run.py").run()
    assert not at.exception
    assert f"Draft v{brief.version}" in [h.value for h in at.subheader]
    assert any("moved past" in c.value for c in at.caption)
    assert not any(b.label.startswith("Approve") for b in at.button)

    at.query_params.pop("version")
    at.run()
    assert f"Draft v{d.current.version}" in [h.value for h in at.subheader]  # type: ignore[union-attr]
