"""Channel formatting: SMS parts, WhatsApp markup, Teams cards, limits."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.pipelines.campaign.channels import (
    SPECS,
    format_message,
    split_sms,
    strip_markdown,
    teams_adaptive_card,
    to_card_sections,
    to_whatsapp,
    whatsapp_to_markdown,
)


def _squash(text: str) -> str:
    return "".join(text.split())


words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
sentence = st.tuples(st.lists(words, min_size=1, max_size=40),
                     st.sampled_from([".", "!", "?", "...", "", ".\n", "\n\n"]))
sentences = st.lists(sentence, max_size=30).map(
    lambda xs: " ".join(" ".join(ws) + end for ws, end in xs))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=3000), sentences))
def test_sms_parts_reassemble_to_the_original_minus_whitespace(text: str) -> None:
    parts = split_sms(text)
    assert _squash("".join(p.content for p in parts)) == _squash(text)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=3000), sentences), limit=st.integers(20, 400))
def test_every_sms_part_is_within_the_limit_and_marked(text: str, limit: int) -> None:
    parts = split_sms(text, limit)
    assert all(len(p.text) <= limit for p in parts)
    if len(parts) > 1:
        n = len(parts)
        assert [p.indicator for p in parts] == [f"({i}/{n})" for i in range(1, n + 1)]
        assert all(p.text.endswith(f"({p.sequence}/{n})") for p in parts)
    assert all(p.content.strip() for p in parts)


def test_sms_splits_at_sentence_boundaries() -> None:
    sentences = [f"This is sentence number {i} of the message, written to fill space."
                 for i in range(8)]
    parts = split_sms(" ".join(sentences))
    assert len(parts) > 1
    for p in parts:
        # Every part starts a sentence and ends one: no sentence is cut in two.
        assert p.content.startswith("This is sentence")
        assert p.content.endswith(".")
    assert parts[0].text.endswith(f"(1/{len(parts)})")


def test_short_sms_is_one_part_without_a_marker() -> None:
    parts = split_sms("Hi Maya! Coffee on us this week?")
    assert len(parts) == 1 and parts[0].indicator is None
    assert parts[0].text == "Hi Maya! Coffee on us this week?"


def test_a_sentence_longer_than_a_part_breaks_between_words() -> None:
    long = " ".join(["word"] * 80) + "."
    parts = split_sms(long)
    assert all(len(p.text) <= 160 for p in parts)
    assert all(not p.content.startswith("ord") for p in parts)


def test_sms_has_no_markdown() -> None:
    msg = format_message("sms", "## Hello\n\nHi **Maya**, see [our menu](https://alma.cafe/menu). "
                         "We'd love a _reel_.")
    assert not re.search(r"[*#_\[\]]", msg.text.replace("alma.cafe", ""))
    assert "our menu (https://alma.cafe/menu)" in msg.text
    assert msg.problems == []


def test_sms_over_1600_characters_is_a_problem() -> None:
    msg = format_message("sms", "A sentence of some length goes here. " * 50)
    assert msg.length > 1600
    assert any("1,600" in p for p in msg.problems)
    assert all(len(p.text) <= 160 for p in msg.parts)


def test_email_keeps_markdown_and_needs_a_subject() -> None:
    body = "Hi Maya,\n\n**What we offer**\n\n- a fee\n- coffee"
    assert format_message("email", body, subject="Collab").problems == []
    no_subject = format_message("email", body)
    assert "Email needs a subject line" in no_subject.problems
    assert format_message("email", body, subject="Collab").text == body


def test_whatsapp_markup() -> None:
    out = to_whatsapp("# Hi\n\n**bold**, *italic*, _also italic_, ~~gone~~ and @maya_bakes_tlv")
    assert out == "*Hi*\n\n*bold*, _italic_, _also italic_, ~gone~ and @maya_bakes_tlv"
    assert whatsapp_to_markdown("*bold* and _it_") == "**bold** and _it_"


def test_whatsapp_and_instagram_limits() -> None:
    assert format_message("whatsapp", "x. " * 1000).problems == []
    assert format_message("whatsapp", "xy. " * 1100).problems
    ig = format_message("instagram_dm", "Hi **Maya**! " * 130)
    assert "**" not in ig.text
    assert any("1,000" in p for p in ig.problems)


def test_teams_card_has_a_title_and_sections() -> None:
    body = ("Hi Maya,\n\nA short note.\n\n**The idea**\nTwo reels in May.\n\n"
            "## What we offer\n$400 per reel.")
    msg = format_message("teams", body, title="Alma Cafe x Maya")
    assert msg.title == "Alma Cafe x Maya"
    assert [s.heading for s in msg.sections] == [None, "The idea", "What we offer"]
    assert msg.sections[1].text == "Two reels in May."
    card = teams_adaptive_card(msg.title, msg.sections)
    assert card["type"] == "AdaptiveCard"
    assert card["body"][0]["text"] == "Alma Cafe x Maya"  # type: ignore[index]
    assert "Teams card needs a title" in format_message("teams", body).problems


def test_strip_markdown_keeps_handles_and_plain_text() -> None:
    assert strip_markdown("Hello @cafe_lover_tlv, 5*3 = 15") == "Hello @cafe_lover_tlv, 5*3 = 15"


def test_every_channel_has_a_spec() -> None:
    assert set(SPECS) == {"sms", "email", "whatsapp", "teams", "instagram_dm"}
    assert to_card_sections("") == []
