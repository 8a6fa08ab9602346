"""What a tester using the desk as a marketer found in session 6: a goal's product read from
"... of our new X" (the campaign promoted the brand's espresso instead), a comment whose second
sentence moves one creator to another channel moving every creator, and a note naming the
product by its stems ("bread end loav rye sell within")."""

from __future__ import annotations

from engine.checks.campaign_consistency import campaign_findings
from engine.pipelines.campaign.goal import goal_product
from engine.pipelines.campaign.message_form import channel_ask
from engine.pipelines.campaign.requests import fee_ask, sentences_of

CREATORS = [("@maya.brews", "Maya Levi"), ("@labcoat.latte", "Dr. Amir Haddad"),
            ("@pastry.notes", "Lior Ben-David")]


def test_the_product_of_a_goal_that_sells_so_many_of_it() -> None:
    assert goal_product("Sell 400 loaves a week of our new sourdough rye bread within 3 "
                        "months") == "sourdough rye bread"
    assert goal_product("Move 120 jars a month of the latest date-and-tahini spread "
                        "until Passover") == "date-and-tahini spread"


def test_each_ask_applies_to_the_creators_its_own_sentence_names() -> None:
    comment = ("Raise Lior's (@pastry.notes) fee to $650. Contact @maya.brews by Instagram DM "
               "instead of SMS. Dr. Haddad stays as he is.")
    assert len(sentences_of(comment)) == 3  # "Dr." ends no sentence
    fee = fee_ask(comment, CREATORS)
    assert fee is not None and fee.handles == ["@pastry.notes"] and fee.amount == 650
    move = channel_ask(comment, CREATORS)
    assert move is not None and move.handles == ["@maya.brews"] and move.to == "instagram_dm"
    # A sentence that names no one moves those the comment names.
    move = channel_ask("Lior's fee is fine. Email her instead of SMS.", CREATORS)
    assert move is not None and move.handles == ["@pastry.notes"]


def test_an_off_product_note_names_the_product_in_words() -> None:
    brief = ("## Key messages\n\n- Try our single-origin espresso\n\n## Deliverables\n\n"
             "- One reel featuring single-origin espresso\n")
    run_input = {"goal": "Sell 400 loaves a week of our new sourdough rye bread within 3 months"}
    context = {"brand": {"products": ["single-origin espresso", "oat-milk latte"]}}
    found = [f for f in campaign_findings("brief", brief, run_input, context)
             if f.category == "off_product"]
    assert found and "'sourdough rye bread'" in found[0].note


def test_a_fee_said_in_pounds_then_in_dollars_is_the_dollar_one() -> None:
    """Found by the blind set coverage_fresh4 after its final scoring: the comment's correction
    to US dollars was refused as a fee in pounds."""
    ask = fee_ask("Can we bump creator #1 to £1,000? ok fine call it 1300 USD", CREATORS)
    assert ask is not None and (ask.amount, ask.currency) == (1300, "USD")
    ask = fee_ask("Offer @maya.brews $400, up from $250", CREATORS)
    assert ask is not None and ask.amount == 400
    ask = fee_ask("Offer @maya.brews £400", CREATORS)
    assert ask is not None and ask.currency == "GBP"  # refused by the drafter, with a reason


def test_new_colon_names_the_product() -> None:
    assert goal_product("New: a recovery sandal for after long runs") == "recovery sandal"
