"""Comments the offline protocol drafter could not apply before (a blind set of requests and
comments, tests/data/coverage_fresh2.json, found 16 of 28 neither applied nor reported): a step
described by a clause, a replacement, a statement to add, a fact the comment points at, quoted
words for a step. What it still cannot apply is reported under "Open points", and only the
sentences that ask for something: "Good start." or "His English isn't great." are context.

The phrasings here are this file's own, not the blind set's. The feedback-coverage check, which
binds every backend, is asked the same question of each revision."""

from __future__ import annotations

import pytest

from engine.checks.feedback_coverage import answered
from engine.llm.offline.protocol.common import third_to_second
from engine.llm.offline.protocol.drafter import draft_protocol
from engine.llm.offline.protocol.intent import _context
from engine.pipelines.base import DraftTask
from engine.pipelines.protocol.text import render_protocol


def _draft(intent: str, previous: str | None = None, feedback: list[str] | None = None) -> str:
    return render_protocol(draft_protocol(DraftTask(
        kind="protocol", stage="draft", input={"intent": intent, "audience": "adults"},
        iteration=2 if previous else 1, previous=previous, feedback=feedback or [])))


def _steps(text: str) -> str:
    return text.split("## Steps", 1)[1].split("\n## ", 1)[0]


LIFT = "Exposure plan for a man who has avoided lifts since he was stuck in one"
WORRY = "Worry time for a student who lies awake worrying about her thesis"


@pytest.mark.parametrize(("intent", "comment", "in_steps"), [
    (LIFT, "Nice. Please add a step where he takes the lift in Kestrel House to the 3rd floor.",
     "Take the lift in Kestrel House to the 3rd floor."),
    (LIFT, "Could you add pressing the call button and stepping back as an early step?",
     "Press the call button and stepping back."),
    (WORRY, "Add a step that caps the worry time at 20 minutes.",
     "Cap the worry time at 20 minutes."),
])
def test_a_step_the_comment_describes_is_added(intent: str, comment: str, in_steps: str) -> None:
    first = _draft(intent)
    revised = _draft(intent, first, [comment])
    assert in_steps in _steps(revised)
    assert "Open points" not in revised  # "Nice." is no request left open
    assert answered(comment, first, revised)
    assert not answered(comment, first, first + "\n")  # ignoring it answers nothing


def test_a_replacement_is_made_throughout_and_the_check_sees_it() -> None:
    intent = "Graded exposure for a woman who panics in supermarkets"
    first = _draft(intent)
    assert "supermarket" in _steps(first)
    comment = "She only shops at one place. Replace 'supermarkets' with 'the Lidl on Hope Street'."
    revised = _draft(intent, first, [comment])
    assert "supermarket" not in revised.lower()
    assert _steps(revised).count("the Lidl on Hope Street") >= 3
    assert answered(comment, first, revised)
    assert not answered(comment, first, first.replace("## Reflection", "## Reflection\n\nOk."))


def test_a_replacement_whose_old_words_are_not_there_is_reported() -> None:
    first = _draft(WORRY)
    comment = "Replace 'the exam hall' with 'the library'."
    revised = _draft(WORRY, first, [comment])
    assert f'Not applied: "{comment}"' in revised


@pytest.mark.parametrize(("comment", "sentence"), [
    ("Say that her worry time is 7pm at the kitchen table.",
     "Your worry time is 7pm at the kitchen table."),
    ("her supervisor is called Dr Amsel - put that in", "Your supervisor is called Dr Amsel."),
    ("The deadline is in June. Please mention it.", "The deadline is in June."),
    ("Her flatmate Noor is her safety contact. Mention Noor in the plan.",
     "Your flatmate Noor is your safety contact."),
    ("Name the thesis topic, Roman Glass", "The thesis topic is Roman Glass."),
])
def test_a_statement_or_a_fact_the_comment_points_at_is_added(comment: str, sentence: str
                                                              ) -> None:
    first = _draft(WORRY)
    revised = _draft(WORRY, first, [comment])
    assert sentence in revised
    assert answered(comment, first, revised)


def test_quoted_words_go_into_the_step_named() -> None:
    intent = "Thought record for a teacher who feels useless after lessons go badly"
    first = _draft(intent)
    comment = 'Put her own words in step 2: "I am letting every pupil down"'
    revised = _draft(intent, first, [comment])
    second = next(line for line in _steps(revised).splitlines() if line.startswith("2. "))
    assert '"I am letting every pupil down"' in second


def test_what_cannot_be_applied_is_reported_without_the_context_around_it() -> None:
    first = _draft(WORRY)
    comment = "She reads better in Dutch. Could you translate all of it into Dutch?"
    revised = _draft(WORRY, first, [comment])
    assert 'Not applied: "Could you translate all of it into Dutch?"' in revised
    assert "She reads better in Dutch" not in revised.split("## Open points", 1)[1]
    assert not answered(comment, first, revised)


def test_a_comment_that_only_states_a_problem_is_reported_whole() -> None:
    first = _draft(WORRY)
    comment = "This is pitched far too young for her."
    assert f'Not applied: "{comment}"' in _draft(WORRY, first, [comment])


def test_quoted_words_the_safety_screen_objects_to_are_not_pasted_in() -> None:
    intent = "Thought record for a paramedic who blames himself after a call"
    first = _draft(intent)
    comment = 'Use his words in step 2: "I should stop taking my sertraline"'
    revised = _draft(intent, first, [comment])
    assert "sertraline" not in revised  # not in the steps, nor quoted under Open points
    assert "Not applied: a comment whose wording the safety screen flags" in revised


@pytest.mark.parametrize(("intent", "feared"), [
    ("Exposure plan for a retired nurse with a needle phobia", "needles"),
    ("Ladder for a boy who hasn't used the escalators at the station since a fall",
     "the escalators at the station"),
    ("Claustrophobia: she has an MRI booked and walked out of the last one", "MRI scans"),
    ("Interoceptive exposure, he fears his heart racing after coffee", "your heart racing"),
])
def test_the_feared_thing_is_read_from_more_phrasings(intent: str, feared: str) -> None:
    assert _context({"intent": intent}).feared == feared


@pytest.mark.parametrize(("intent", "focus"), [
    ("Keeps going round and round about the divorce hearing and what he said",
     "the divorce hearing"),
    ("She can't let go of the presentation where her slides froze", "the presentation"),
    ("Problem-solving worksheet: client's car failed its MOT and she has no savings",
     "your car failed its MOT and you have no savings"),
    ("Breathing exercise for a waiter who gets breathless before the dinner rush",
     "you get breathless before the dinner rush"),
    ("Restructuring: young dad believes he is a terrible father because he shouts",
     "the thought 'you are a terrible father because you shout'"),
])
def test_the_focus_of_other_techniques_is_the_request_s_own_situation(intent: str, focus: str
                                                                       ) -> None:
    assert _context({"intent": intent}).focus == focus


def test_a_breathing_request_names_no_feared_thing() -> None:
    assert _context({"intent": "Paced breathing for a train driver on night shifts"}).feared is None


@pytest.mark.parametrize(("third", "second"), [
    ("he freezes before penalties", "you freeze before penalties"),
    ("she lies awake", "you lie awake"),
    ("a doctor corrects her on the ward", "a doctor corrects you on the ward"),
    ("she's stopped going to choir", "you've stopped going to choir"),
    ("her brother", "your brother"),
])
def test_third_person_reads_as_the_reader(third: str, second: str) -> None:
    assert third_to_second(third) == second


def test_a_person_asking_for_fewer_steps_gets_a_shorter_list() -> None:
    first = _draft(LIFT)
    before = sum(line[:1].isdigit() for line in _steps(first).splitlines())
    revised = _draft(LIFT, first, ["fewer steps maybe? he switches off with long lists"])
    after = sum(line[:1].isdigit() for line in _steps(revised).splitlines())
    assert before > 5 >= after >= 4


def test_a_comment_asking_for_a_shorter_text_is_answered_by_a_shorter_one() -> None:
    first = _draft(LIFT)
    steps = _steps(first)
    shorter = first.replace(steps, "\n\n" + "\n".join(steps.strip().splitlines()[:4]) + "\n")
    reworded = first.replace("Write down", "Jot down", 1)
    for comment in ("too long, shorten it", "fewer steps please, he loses track"):
        assert answered(comment, first, shorter)
        assert not answered(comment, first, reworded)  # a touched word is no shorter text
    # About one step: judged by what changed there, not by the length of the whole.
    assert not answered("Step 3 is too long", first, shorter.replace("Write", "Note", 1))


def test_a_step_count_a_person_asks_for_is_kept() -> None:
    first = _draft(LIFT)
    revised = _draft(LIFT, first, ["Cut it down to four steps"])
    assert sum(line[:1].isdigit() for line in _steps(revised).splitlines()) == 4
    assert answered("Cut it down to four steps", first, revised)
