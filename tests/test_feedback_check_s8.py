"""The feedback check (engine/checks/feedback_coverage.answered) on forms it misread before
session 8 (found on coverage_fresh4-6, where the drafter had applied the comment and the check
still said "not addressed"; these texts are new): an ask after its reason ("..., so mention
X"); a number in the reason ("she's under 18") is context, not a number to carry; a phrase
asked to be quoted is in place; "it's missing" names no content. The same check runs for every
backend, so these hold for a real model's revision too."""

from __future__ import annotations

from engine.checks.comment_asks import is_request
from engine.checks.feedback_coverage import answered

BEFORE = """# Urge delay

## Steps

1. Notice the urge and rate it from 0 to 10.
2. Wait ten minutes before doing anything.
3. Use your safety plan.
"""


def _with(line: str) -> str:
    return BEFORE.replace("3. Use your safety plan.", f"3. Use your safety plan.\n4. {line}")


def test_an_ask_after_its_reason_is_an_ask() -> None:
    assert is_request("He faints easily, so mention applied tension before the needle steps.")
    assert is_request("Looks good - add a step about the school nurse.")
    assert not is_request("That's essential for blood-injury phobia.")
    assert not is_request("The lift was broken and so on.")


def test_a_number_in_the_reason_is_not_asked_for() -> None:
    comment = "Please add the Kids Helpline 1800 55 1800 to the plan, he's only 15."
    assert answered(comment, BEFORE, _with("Call the Kids Helpline on 1800 55 1800."))
    # the number it does ask for is still required
    assert not answered(comment, BEFORE, _with("Call the Kids Helpline."))


def test_a_quoted_phrase_in_place_answers_a_quote_request() -> None:
    comment = "Quote her words 'I always mess it up' in the step where she notices the urge."
    assert answered(comment, BEFORE, _with('Notice the thought: "I always mess it up".'))
    assert not answered(comment, BEFORE, _with("Notice the thought and let it pass."))


def test_it_is_missing_names_nothing_to_add() -> None:
    comment = "can you add a line for 'alternative view' - it's missing"
    assert answered(comment, BEFORE, _with("Write an alternative view of the moment."))


def test_request_coverage_one_step_with_every_term_is_working_with_it() -> None:
    from engine.checks.request_coverage import protocol_findings
    request = {"intent": "cog restructuring for a guy who assumes his manager hates him"}
    one = ("# Restructuring\n\n## Steps\n\n1. Start from your thought 'your manager hates you' "
           "and write it down.\n2. Name the thinking trap.\n3. Weigh the evidence.\n")
    generic = ("# Restructuring\n\n## Steps\n\n1. Write down a thought.\n2. Name the thinking "
               "trap.\n3. Weigh the evidence.\n")
    assert not [f for f in protocol_findings(one, request) if f.category == "request_not_covered"]
    assert [f for f in protocol_findings(generic, request) if f.category == "request_not_covered"]


def test_words_a_comment_asks_to_avoid_do_not_answer_it() -> None:
    # "not just 'out of reach'": those words turning up is no sign the comment was applied
    comment = "Phone goes on charge in the hallway, please state that - not just 'out of reach'."
    assert not answered(comment, BEFORE, _with("Keep your phone out of reach."))
    assert answered(comment, BEFORE, _with("Put your phone on charge in the hallway."))


def test_the_reason_for_an_ask_is_not_what_it_asks_for() -> None:
    comment = "Add a step about earplugs, she says the flat above is loud after midnight."
    assert answered(comment, BEFORE, _with("Try earplugs if noise keeps you awake."))
