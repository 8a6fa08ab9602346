"""The "New campaign" page (AppTest): start a chat, talk to the agent through the chat input,
see the card fill in beside it, confirm, and find the started campaign; an open chat is listed
to resume and opens where it stopped; an unknown chat id says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine import run_list
from engine.intake import service

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ME = "Mia Levin"


@pytest.fixture(autouse=True)
def _db(db_url: str) -> None:
    return None


def _page(query: dict[str, str] | None = None, who: str | None = ME) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    if who:
        at.session_state["reviewer"] = who
    at.run()
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.switch_page("pages/intake.py").run()


def _say(at: AppTest, text: str) -> AppTest:
    at.chat_input[0].set_value(text).run()
    assert not at.exception, at.exception
    return at


def _card(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_a_chat_fills_the_card_and_starts_the_campaign_on_confirmation() -> None:
    at = _page()
    assert not at.exception and at.title[0].value == "New campaign"
    at.button(key="intake_start").click().run()
    assert at.query_params["intake"]
    assert "What is the business called?" in _card(at)
    assert "0 of 11 filled in" in at.get("progress")[0].proto.text
    _say(at, "We're Tidewater Surf School, we teach surfing lessons in Newquay, UK.")
    assert "**Business**: Tidewater Surf School" in _card(at)
    assert "you said, message 1" in [c.value for c in at.caption]
    for text in ["Customers are teenagers and tourists; our tone is salty and fun",
                 "products: group lessons, board hire", "none",
                 "Goal: 120 lesson bookings. Budget $2000. Email only. June 2027"]:
        _say(at, text)
    assert "Is all of this right?" in at.chat_message[-1].markdown[0].value
    assert not run_list.list_runs(kind="campaign")  # nothing before the confirmation
    _say(at, "yes")
    [run] = run_list.list_runs(kind="campaign")
    assert at.success[0].value == f"Campaign started: run {run.id}."
    assert at.chat_input[0].disabled


def test_an_open_chat_is_listed_and_resumes_where_it_stopped() -> None:
    view = service.start_intake(actor=ME)
    service.send_message(intake_id=view.id, actor=ME, text="I run Lark Florist in Bristol, UK")
    at = _page()
    links = [p.proto.label for p in at.get("page_link")]
    assert any("Lark Florist" in label and "to go" in label for label in links)
    at = _page({"intake": str(view.id)})
    assert "**Business**: Lark Florist" in _card(at)
    assert at.chat_message[-1].markdown[0].value.endswith("What does it sell, or what does it do?")
    _say(at, "we arrange wedding flowers")
    assert "**What it sells**: We arrange wedding flowers" in _card(at) or \
        "**What it sells**: Wedding flowers" in _card(at)


def test_bad_input_and_unknown_chats_are_answered() -> None:
    at = _page({"intake": "999"})
    assert "Intake 999 does not exist." in [e.value for e in at.error]
    at = _page()
    at.button(key="intake_start").click().run()
    _say(at, "<html><body><p>Menu</p><script>x()</script></body></html>")
    assert "looks like the HTML of a web page" in at.chat_message[-1].markdown[0].value
    assert "0 of 11 filled in" in at.get("progress")[0].proto.text


def test_without_a_name_the_chat_cannot_start() -> None:
    at = _page(who=None)
    assert at.button(key="intake_start").disabled
