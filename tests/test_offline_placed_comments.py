"""Comments that say *where* something goes, and requests whose target the offline protocol
drafter misread before session 6 (found on tests/data/coverage_fresh3.json, a set that is now
seen): "tell her to ...", the ladder's top rung or its last step, a line of the safety plan, a
setting of something the draft has; a ladder's own target ("hierarchy for speaking in
meetings") over other things the request mentions, a person never taken for the feared thing,
and behavioural activation built on what the person used to enjoy.

The phrasings are this file's own. The feedback-coverage check, which binds every backend, is
asked the same question of each revision."""

from __future__ import annotations

import pytest

from engine.checks.feedback_coverage import answered
from engine.checks.request_coverage import protocol_findings
from engine.llm.offline.protocol.request import read_request
from tests.test_offline_comments import _draft, _steps

LADDER = "Graded exposure for a nurse who avoids bridges since a bad crossing in a storm"
URGES = "Urges to self-harm after arguments at home, 17 year old"
WORRY = "Worry time for a dad who lies awake worrying about his son's grades"


@pytest.mark.parametrize(("intent", "comment", "want"), [
    (WORRY, "Tell him to leave the phone downstairs at night.",
     "Leave the phone downstairs at night."),
    (LADDER, "Please add walking across the Tyne bridge as the top rung.",
     "Walk across the Tyne bridge."),
    # a known false alarm of session 10's screen (threshold 0.5): "Work up to the Humber bridge
    # on foot as your top rung." reads dangerous_practice at p 0.70 less 0.20 for no word of
    # it, so the drafter will not write it (and says so); strict, so a fix shows here
    pytest.param(LADDER, "The top rung should be the Humber bridge on foot.",
                 "Work up to the Humber bridge on foot as your top rung.",
                 marks=pytest.mark.xfail(strict=True, reason="screen false alarm, session 10")),
])
def test_a_step_the_comment_places_is_added(intent: str, comment: str, want: str) -> None:
    first = _draft(intent)
    revised = _draft(intent, first, [comment])
    assert want in _steps(revised)
    assert "Open points" not in revised
    assert answered(comment, first, revised)


def test_the_last_step_a_comment_names_ends_the_exercise() -> None:
    first = _draft(LADDER)
    revised = _draft(LADDER, first, ["Final step should be the drive over the Severn crossing "
                                     "with her sister."])
    last = _steps(revised).strip().splitlines()[-1]
    assert last.endswith("Finish with the drive over the Severn crossing with your sister.")
    assert "Make sure" not in last  # a statement is not turned into "Make sure ..."


def test_a_line_for_the_safety_plan_goes_where_the_plan_is() -> None:
    first = _draft(URGES)
    comment = "Pls add the school counsellor, Mr Adebayo, to the safety plan."
    revised = _draft(URGES, first, [comment])
    plan_steps = [s for s in _steps(revised).splitlines() if "safety plan" in s]
    assert any("Mr Adebayo" in s for s in plan_steps)
    assert answered(comment, first, revised)


def test_a_setting_goes_to_the_step_that_has_it() -> None:
    first = _draft(WORRY)
    comment = "Set the worry time for 6 pm, before dinner."
    revised = _draft(WORRY, first, [comment])
    step = next(s for s in _steps(revised).splitlines() if "6 pm" in s)
    assert "worry time" in step.lower()
    assert answered(comment, first, revised)


@pytest.mark.parametrize(("intent", "feared"), [
    ("Shy student, won't talk in seminars, avoids even eye contact in the corridor. Hierarchy "
     "for asking a question in seminars", "asking a question in seminars"),
    ("Desensitisation ladder for a retired postman who avoids dogs", "dogs"),
    ("Exposure hierarchy for Miriam, 51, who is scared of escalators", "escalators"),
    ("Spider fear - graded exposure for a 12 year old", "spiders"),
    ("Exposure hierarchy for health anxiety around hospitals", "hospitals"),
    # a kind of fear yields to what the person avoids; "a ladder to get her ..." is a purpose
    ("Germ fear - won't sit on public benches, carries wipes. Gradual exposure please",
     "public benches"),
    ("he's scared of the barber, hasn't had a haircut in a year. ladder to get him back in",
     "the barber"),
])
def test_a_ladder_is_for_its_own_target_never_a_person(intent: str, feared: str) -> None:
    assert read_request(intent).feared == feared
    assert _steps(_draft(intent)).count(feared) >= 3


def test_activation_builds_on_what_the_person_used_to_enjoy() -> None:
    intent = ("Behavioural activation for a widower who used to love fishing and hasn't left "
              "the house much since the funeral")
    assert read_request(intent).activity == "fishing"
    steps = _steps(_draft(intent))
    assert steps.count("fishing") >= 2
    assert "the house much" not in steps


def test_a_ladder_built_on_its_situation_is_not_flagged_for_the_details_it_leaves_out() -> None:
    intent = ("Graded exposure for a bank clerk in her forties who avoids lifts since a power "
              "cut at the old office block on a Tuesday")
    draft = _draft(intent)
    assert _steps(draft).count("lifts") >= 3
    assert not [f for f in protocol_findings(draft, {"intent": intent})
                if f.category == "request_not_covered"]
    # A generic ladder that pastes the request once is still flagged.
    generic = draft.replace("lifts", "situations")
    generic += f"\n\nIt was written with this in mind: {intent}."
    assert [f for f in protocol_findings(generic, {"intent": intent})
            if f.category == "request_not_covered"]


def test_a_youth_crisis_line_a_reviewer_names_is_kept_not_redacted() -> None:
    """Childline's number was stored as "[phone]" (redaction keeps only the crisis lines the
    desk knows), so the revision said "Childline [phone]" and the check could not see the
    number missing."""
    from engine.redact import redact_text

    comment = "Please put Childline 0800 1111 in her safety plan."
    assert redact_text(comment) == comment
    assert redact_text("ring me on 07700 900123") == "ring me on [phone]"
    first = _draft(URGES)
    revised = _draft(URGES, first, [comment])
    assert any("Childline 0800 1111" in s for s in _steps(revised).splitlines()
               if "safety plan" in s)
    assert answered(comment, first, revised)


@pytest.mark.parametrize(("intent", "in_steps"), [
    # a belief read after its person, with "assumes"; "him" ending it is the person. A known
    # false alarm of session 10's screen: "the head hates him since the inspection" reads
    # dangerous_practice at p 0.85 less 0.30 (no word of it), so the drafter does not echo it;
    # strict, so a fix shows here
    pytest.param("Cognitive restructuring for a teacher who assumes the head hates him since the "
                 "inspection", "the head hates you since the inspection",
                 marks=pytest.mark.xfail(strict=True, reason="screen false alarm, session 10")),
    # the part of the request that states a belief comes first
    ("Spiralling about grades - is sure one failed quiz means he'll be kicked off the course. "
     "Thought record", "one failed quiz means"),
    # a person described first, then the situation
    ("Problem solving: young dad exhausted, the car broke down and the nursery is across town",
     "the car broke down"),
])
def test_other_techniques_start_from_the_requests_own_situation(intent: str,
                                                                 in_steps: str) -> None:
    assert in_steps in _steps(_draft(intent))


def test_the_purpose_speaks_to_the_client_not_about_them() -> None:
    """The purpose pasted the clinician's request ("It was written with this situation in mind:
    BA plan for depressed retiree who ..."): a label for the client, in a handout for them."""
    intent = "BA plan for a depressed retiree who used to love birdwatching, barely leaves home"
    purpose = _draft(intent).split("## Purpose", 1)[1].split("\n## ", 1)[0]
    assert "depressed retiree" not in purpose and "BA plan" not in purpose
    assert "It is built around your own situation: birdwatching." in purpose


def test_fewer_steps_is_answered_by_fewer_steps_and_shorter_by_a_shorter_text() -> None:
    intent = "Graded exposure for a chef who avoids crowded trains since a panic attack"
    first = _draft(intent)
    n_first = len([ln for ln in _steps(first).splitlines() if ln.strip()])
    fewer = "Fewer steps please, he loses track of long lists."
    revised = _draft(intent, first, [fewer])
    assert len([ln for ln in _steps(revised).splitlines() if ln.strip()]) < n_first
    assert answered(fewer, first, revised)
    # The same number of steps, reworded, is no answer however much shorter.
    reworded = first.replace("Small first rungs are fine.", "")
    assert not answered(fewer, first, reworded)
    for comment in ("Too long, shorten it.", "Bit long, trim it down a little?"):
        short = _draft(intent, first, [comment])
        assert len(short.split()) <= 0.9 * len(first.split()), comment
        assert answered(comment, first, short)


def test_a_long_event_is_cut_at_its_last_place_not_dropped() -> None:
    intent = ("Client keeps replaying the row he had with his older brother at his daughter's "
              "christening party last month and cannot sleep")
    assert read_request(intent).event == "the row you had with your older brother"
    assert "the row you had with your older brother" in _steps(_draft(intent))


def test_a_crisis_line_a_reviewer_asks_for_is_kept_with_a_warning_not_fought(db_url: str) -> None:
    """A reviewer's "add Childline" on a run whose region is the US: the Safety Guardian's
    critical "a reader in the US cannot call 0800 1111" made the drafter take it out, the
    comment put it back, and the loop ran to its iteration limit with clinical at 0.50. People
    decide: the line stays and the reviewer is warned."""
    from engine import service, views
    from engine.llm.offline.backend import OfflineBackend
    from engine.loop.leases import claim_run
    from engine.loop.supervisor import Supervisor

    run_id = service.start_run(kind="protocol", actor="dr. lee", input={
        "intent": "Graded exposure for a teen who avoids school buses", "audience": "adults"})
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    service.request_revision(run_id=run_id, actor="dr. lee", expected_version=d.version,
                             comment="Please add Childline 0800 1111 to the safety plan.")
    assert claim_run(run_id, "w")
    Supervisor(OfflineBackend(), "w").run_until_idle(run_id)
    d = views.get_run(run_id)
    assert "Childline 0800 1111" in d.current.content  # type: ignore[union-attr]
    assert d.halt_reason == "thresholds_met"
    assert d.current.scores["safety"] == 1.0  # type: ignore[union-attr]
    warned = [n.text for n in d.notes if n.author == "safety_guardian" and "0800 1111" in n.text]
    assert warned and all("as a reviewer asked" in t for t in warned)
    assert not [n for n in d.notes if n.author == "safety_guardian" and n.priority == "critical"
                and "0800 1111" in n.text]


def test_a_clause_asking_for_something_else_is_read_and_judged_on_its_own() -> None:
    first = _draft(URGES)
    comment = "Add the school nurse to the safety plan, and can you translate it into Klingon?"
    revised = _draft(URGES, first, [comment])
    assert "Add the school nurse to your safety plan." in revised
    assert 'Not applied: "can you translate it into Klingon?"' in revised
    assert not answered(comment, first, revised)  # half done is not done
