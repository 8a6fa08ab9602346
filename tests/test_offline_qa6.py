"""What a tester using the desk as a clinician found in session 6 (not written against the
blind sets): a four-part comment half applied and the text broken by the revision, a crisis
note counted as not addressed although the revision gave the crisis line, critic notes asking
for an "action verb" on a step that starts "When you notice ..., name it", and a plain-words
pass that turned "in particular" into "in certain"."""

from __future__ import annotations

from engine.checks.feedback_coverage import answered
from engine.llm.offline.protocol.common import _is_imperative, _sentences, third_to_second
from tests.test_offline_comments import _draft, _steps

RUMINATION = "Rumination about losing my job at the bakery in the spring"


def test_a_four_part_comment_is_applied_whole_and_the_text_stays_whole() -> None:
    first = _draft(RUMINATION)
    comment = ("Add a step where she writes a letter to her old boss that she never sends. "
               "Call the place 'Crumb & Co' instead of 'the bakery'. Replace the word 'worry' "
               "with 'rumination' throughout. Make it shorter: at most 5 steps.")
    revised = _draft(RUMINATION, first, [comment])
    steps = [ln for ln in _steps(revised).splitlines() if ln.strip()]
    assert any("Write a letter to your old boss that you never send." in s for s in steps)
    assert len(steps) <= 5
    assert "Crumb & Co" in revised and "the bakery" not in revised
    assert "worry" not in revised.lower().replace("worries", "")
    assert revised.startswith("# Rumination")  # a capital stays a capital
    assert "Open points" not in revised
    assert revised.count('"') % 2 == 0  # no quote left open by a shortened step
    assert "Make sure" not in _steps(revised)
    assert answered(comment, first, revised)


def test_a_closing_quote_stays_with_its_sentence() -> None:
    assert _sentences('Name it: "I\'m going round in circles again." Noticing is a skill.') == [
        'Name it: "I\'m going round in circles again."', "Noticing is a skill."]


def test_a_step_that_starts_with_its_moment_is_an_action() -> None:
    assert _is_imperative("When you notice your mind going back over losing your job at the "
                          "bakery in the spring, name it to yourself.")
    assert not _is_imperative("Worries are reviewed at worry time.")


def test_he_never_sends_becomes_you_never_send() -> None:
    assert third_to_second("a letter that he never sends") == "a letter that you never send"


def test_numbers_offered_as_alternatives_are_answered_by_one_of_them() -> None:
    note = ("The safety note has no crisis resource: add 988 Suicide & Crisis Lifeline: call or "
            "text 988, or emergency services on 911, if the reader feels unsafe.")
    before = "## Safety note\n\nTalk to your clinician if things feel harder."
    after = before + (" If you feel unsafe, call or text 988 (the Suicide and Crisis Lifeline) "
                      "or your local emergency number.")
    assert answered(note, before, after)
    assert not answered("Add the numbers 116 123 and 0800 1111.", before, after)


def test_a_teen_urge_plan_has_no_broken_plain_words_sentence() -> None:
    intent = "Coping with urges to self-harm (cutting) for a 15 year old girl after school"
    from engine.llm.offline.protocol.drafter import draft_protocol
    from engine.pipelines.base import DraftTask
    from engine.pipelines.protocol.text import render_protocol

    text = render_protocol(draft_protocol(DraftTask(
        kind="protocol", stage="draft", input={"intent": intent, "audience": "teenagers 13-17"},
        iteration=1)))
    assert "in certain" not in text
    assert "after school" in _steps(text)
