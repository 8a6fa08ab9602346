"""A request that names how many steps it wants ("10 steps", "a 6-rung ladder") gets that
many, and a ladder's rungs are written out rather than left to the reader (the tester's finding
6 in session 6: a 10-step request came back with 7 steps telling the reader to "list eight to
ten situations", and no check noticed). Below the spec's reflection questions is below the
spec, like fewer than 4 steps (finding 8). Offline and with a scripted model."""

from __future__ import annotations

import pytest

from engine.checks.follow import follow_checks
from engine.checks.step_count import asked_range
from engine.llm.offline.protocol.critics import review_clinical
from engine.pipelines.base import ReviewTask
from testkit.fake_openai import running
from testkit.protocol_team import ProtocolTeam
from tests.test_follow_loop import cli, latest, show, use_fake_server
from tests.test_offline_comments import _draft, _steps

ESCALATORS = "Graded exposure ladder for a fear of escalators in shopping malls, 10 steps"


@pytest.mark.parametrize(("request_text", "asked"), [
    (ESCALATORS, (10, 10)),
    ("a 6-rung ladder for a boy scared of dogs", (6, 6)),
    ("worry time, no more than five steps please", (1, 5)),
    ("8-10 steps around needles", (8, 10)),
    ("at least 9 steps", (9, 12)),
    ("ten-step plan for sleep", (10, 10)),
    ("client goes to a 12-step programme and fears speaking in meetings", None),
    ("she takes 9 flights of stairs to avoid the lift", None),
    ("face it one step at a time", None),
])
def test_the_count_a_request_asks_for(request_text: str, asked: tuple[int, int] | None) -> None:
    assert asked_range(request_text) == asked


def _numbered(text: str) -> list[str]:
    return [ln for ln in _steps(text).splitlines() if ln.strip()[:1].isdigit()]


def test_a_ladder_asked_in_ten_steps_has_ten_rungs_built_on_the_feared_thing() -> None:
    steps = _numbered(_draft(ESCALATORS))
    assert len(steps) == 10
    assert all("escalator" in s.lower() for s in steps)
    text = " ".join(steps).lower()
    assert "list eight to ten" not in text  # the rungs are written, not left to the reader
    assert "from a distance" in text and "on your own" in text
    # The place is said where the ladder starts, not pasted into every step.
    assert text.count("shopping malls") <= 2


def test_the_count_holds_when_a_comment_adds_a_step() -> None:
    first = _draft(ESCALATORS)
    revised = _draft(ESCALATORS, first, ["Add a step about riding one floor with my sister Ana."])
    steps = _numbered(revised)
    assert len(steps) == 10
    assert any("sister Ana" in s for s in steps)


def test_a_request_for_fewer_steps_than_usual_is_met() -> None:
    steps = _numbered(_draft("Worry postponement for a nurse who worries about night shifts, "
                             "no more than 5 steps"))
    assert 1 <= len(steps) <= 5


def test_the_check_flags_a_draft_with_another_count_and_caps_clinical() -> None:
    seven = "# Facing fears\n\n## Steps\n\n" + "\n".join(
        f"{i}. Stand near an escalator for {i} minutes." for i in range(1, 8))
    found = follow_checks("protocol", "draft", seven, {"intent": ESCALATORS}).findings
    counts = [f for f in found if f.category == "request_step_count"]
    assert len(counts) == 1 and counts[0].cap == 0.5 and counts[0].score == "clinical"
    assert "asks for 10 steps; the draft has 7" in counts[0].text
    ten = seven.replace("## Steps\n\n", "## Steps\n\n" + "\n".join(
        f"{i}. Ride an escalator {i} times." for i in range(8, 11)) + "\n")
    assert not [f for f in follow_checks("protocol", "draft", ten, {"intent": ESCALATORS}).findings
                if f.category == "request_step_count"]


def test_the_offline_critic_reads_the_asked_count_instead_of_four_to_eight() -> None:
    ten = _draft(ESCALATORS)
    review = review_clinical(ReviewTask(kind="protocol", stage="draft",
                                        input={"intent": ESCALATORS}, content=ten))
    assert not any("trim to 8" in n.text for n in review.notes)
    seven = _draft("Graded exposure ladder for a fear of escalators in shopping malls")
    review = review_clinical(ReviewTask(kind="protocol", stage="draft",
                                        input={"intent": ESCALATORS}, content=seven))
    assert any("asks for 10 steps" in n.text for n in review.notes)
    assert next(s.value for s in review.scores if s.name == "clinical") < 0.7


def test_one_reflection_question_is_below_the_spec() -> None:
    text = _draft("Thought record for a student who thinks she will fail her exams")
    head, rest = text.split("## Reflection", 1)
    questions, tail = rest.split("\n## ", 1)
    one = [ln for ln in questions.splitlines() if ln.strip().startswith("-")][:1]
    thin = head + "## Reflection\n\n" + "\n".join(one) + "\n\n## " + tail
    review = review_clinical(ReviewTask(kind="protocol", stage="draft", input={}, content=thin))
    assert next(s.value for s in review.scores if s.name == "clinical") < 0.7
    assert any("Only one reflection question" in n.text for n in review.notes)


def test_offline_run_end_to_end_meets_the_count(db_url: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "run", "protocol", "--intent", ESCALATORS, "--audience", "adults")
    detail = show(capsys, "1")
    assert detail["halt_reason"] == "thresholds_met"
    assert len(_numbered(latest(detail)["content"])) == 10


def test_a_scripted_model_that_ignores_the_count_is_flagged(
        db_url: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with running(responder=ProtocolTeam([0.9])) as server:
        use_fake_server(monkeypatch, server.url)
        cli(capsys, "run", "protocol", "--intent", "Paced breathing for exam panic, 10 steps")
    last = latest(show(capsys, "1"))
    assert "request_step_count" in {f["category"] for f in last["flags"]}
    assert last["scores"]["clinical"] <= 0.5


def test_the_count_is_not_read_as_part_of_the_situation(
        db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    intent = "Thought record for a teacher who thinks parents hate her, 6 steps"
    assert "6 steps" not in _draft(intent)
    cli(capsys, "run", "protocol", "--intent", intent, "--audience", "adults")
    detail = show(capsys, "1")  # a first draft may come out thin: the loop restores the count
    text = latest(detail)["content"]
    assert "parents hate you'" in text and "6 steps" not in text
    assert len(_numbered(text)) == 6 and detail["halt_reason"] == "thresholds_met"


def test_a_short_ladder_keeps_facing_it_alone() -> None:
    steps = _numbered(_draft("4-step ladder for fear of dogs"))
    assert len(steps) == 4
    assert any("on your own" in s for s in steps)
    assert all("dog" in s.lower() for s in steps)


def test_a_feared_activity_is_tried_not_approached() -> None:
    text = _draft("Graded exposure for fear of driving on the motorway, 9 steps")
    steps = _numbered(text)
    assert len(steps) == 9
    joined = " ".join(steps)
    assert "closer to driving" not in joined and "around driving" not in joined
    assert "try driving on the motorway" in joined.lower()
    assert "Just next" not in joined and "Simply next" not in joined


def test_a_real_model_is_told_the_count_the_request_asks_for() -> None:
    from engine.pipelines.base import DraftTask
    from engine.pipelines.protocol.spec import DRAFTER
    prompt = DRAFTER.render_user(DraftTask(kind="protocol", stage="draft", iteration=1,
                                           input={"intent": ESCALATORS, "audience": "adults"}))
    assert "Steps asked for: 10" in prompt
    plain = DRAFTER.render_user(DraftTask(kind="protocol", stage="draft", iteration=1,
                                          input={"intent": "exam panic", "audience": "adults"}))
    assert "Steps asked for" not in plain
