"""Campaign compliance: banned words and claims, paid-partnership disclosure, channel rules."""

from __future__ import annotations

from engine.pipelines.campaign.compliance import campaign_checks, check_campaign
from engine.pipelines.campaign.outreach import parse_outreach, render_outreach


def _outreach(*messages: tuple[str, str | None, str]) -> str:
    return render_outreach(brand_name="Alma Cafe", shortlist=["@maya.brews"],
                           messages=[("@maya.brews", "Maya Levi", ch, subj, body)
                                     for ch, subj, body in messages])


def _cats(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.category for f in result.flags]


def test_generic_claims_are_flagged_with_the_sentence() -> None:
    text = ("# Brief\n\nOur latte is great. Results are guaranteed within a week. "
            "It cures tiredness! Try it risk-free. It has no side effects.")
    r = check_campaign(text, stage="brief")
    claims = [f for f in r.flags if f.category == "banned_claim"]
    assert [f.text for f in claims] == ["Results are guaranteed within a week.",
                                        "It cures tiredness!", "Try it risk-free.",
                                        "It has no side effects."]
    for f in claims:
        assert text[f.start:f.end] == f.text
    assert r.caps["compliance"] == 0.0


def test_brand_words_and_claims_are_flagged_case_insensitively() -> None:
    text = "Alma is the CHEAP option. Our beans are Organic. We love our regulars."
    r = check_campaign(text, stage="brief", avoid_words=["cheap"], avoid_claims=["organic"])
    assert _cats(r) == ["banned_word", "banned_claim"]
    assert r.caps["compliance"] == 0.4


def test_whole_words_only() -> None:
    r = check_campaign("A secure, curated selection of cheapskate jokes.", stage="brief",
                       avoid_words=["cheap"])
    assert r.flags == []
    assert r.caps["compliance"] == 1.0


def test_a_sentence_that_says_what_to_avoid_is_protective() -> None:
    text = ("## Compliance\n\n- Avoid claims such as guaranteed results, cures or risk-free.\n"
            "- Creators must not say organic.")
    assert check_campaign(text, stage="plan", avoid_claims=["organic"]).flags == []


def test_outreach_asking_to_post_needs_a_disclosure() -> None:
    text = _outreach(("sms", None, "Hi Maya! Would you post a reel about our latte? Reply YES."),
                     ("email", "Collab", "Hi Maya, would you post a reel? It's a paid "
                      "partnership. Reply to this email."),
                     ("whatsapp", None, "Hi Maya! One reel for $250, tagged #ad? Interested?"))
    r = check_campaign(text, stage="outreach")
    disclosure = [f for f in r.flags if f.category == "disclosure"]
    assert len(disclosure) == 1
    assert disclosure[0].text == "Would you post a reel about our latte?"
    assert text[disclosure[0].start:disclosure[0].end] == disclosure[0].text


def test_a_message_that_does_not_ask_to_post_needs_no_disclosure() -> None:
    text = _outreach(("email", "Hello", "Hi Maya, thanks for the chat yesterday. Talk soon?"))
    assert check_campaign(text, stage="outreach").flags == []


def test_briefs_and_plans_that_ask_for_posts_need_a_disclosure() -> None:
    brief = "## Deliverables\n\n- Each creator makes one reel and two stories."
    assert _cats(check_campaign(brief, stage="brief")) == ["disclosure"]
    ok = brief + "\n- Sponsored posts carry #ad."
    assert check_campaign(ok, stage="brief").flags == []
    # The shortlist lists creators' niches ("video", "stories"): not an ask to post.
    assert check_campaign("| @a | videos and stories |", stage="creators").flags == []


def test_channel_rules_sms_length_and_email_subject() -> None:
    long_sms = "This is a long text message about coffee. " * 45 + "Paid partnership, #ad. Reply?"
    text = _outreach(("sms", None, long_sms), ("email", None, "Hi Maya, a question for you?"))
    r = check_campaign(text, stage="outreach")
    assert sorted(_cats(r)) == ["email_subject", "sms_length"]
    assert all(f.check == "channel_rules" for f in r.flags)
    for f in r.flags:
        assert text[f.start:f.end] == f.text
    assert r.caps["compliance"] == 0.4


def test_instagram_dm_over_its_limit() -> None:
    text = _outreach(("instagram_dm", None, "We love your reels, and #ad is fine. " * 40 + "Ok?"))
    assert _cats(check_campaign(text, stage="outreach")) == ["instagram_dm_length"]


def test_outreach_is_detected_without_a_stage() -> None:
    text = _outreach(("sms", None, "Would you post a reel for us? Reply!"))
    assert _cats(check_campaign(text)) == ["disclosure"]


def test_outreach_round_trip_keeps_offsets() -> None:
    text = _outreach(("email", "Paid collab", "Hi Maya,\n\n**Offer**\n\n- $250\n\nReply?"),
                     ("teams", "Alma x Maya", "Hi Maya\n\n**The idea**\nA reel. #ad"))
    doc = parse_outreach(text)
    assert doc.shortlist == ["@maya.brews"]
    assert [(m.channel, m.subject) for m in doc.messages] == [("email", "Paid collab"),
                                                              ("teams", "Alma x Maya")]
    for m in doc.messages:
        assert text[m.start:m.end] == m.body
    assert doc.messages[0].body.startswith("Hi Maya,")


def test_stage_check_reads_the_brand_from_the_step_context(db_url: str) -> None:
    """The check itself is pure: the brand's banned lists come in the context a step is given
    when it opens (resolved from the database by the pipeline's review_context)."""
    from db.session import session_scope
    from engine.pipelines.campaign.brands import list_brands
    from engine.pipelines.campaign.spec import CAMPAIGN

    alma = next(b for b in list_brands() if b.name == "Alma Cafe")
    with session_scope() as s:
        ctx = CAMPAIGN.context_for_review(s, {"brand_id": alma.id}, "brief")
        gone = CAMPAIGN.context_for_review(s, {"brand_id": 999}, "brief")
    check = campaign_checks("brief")
    text = "Come for the healthiest coffee in town; #ad on posts."
    assert _cats(check(text, {"brand_id": alma.id}, ctx)) == ["banned_claim"]
    assert check(text, {"brand_id": alma.id}, {}).flags == []  # nothing read behind its back
    assert check("Come for the coffee.", {"brand_id": 999}, gone).flags == []
