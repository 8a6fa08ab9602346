"""Crisis lines follow the reader's region, not always 988: the data file (every region's
note names its own line), the clinic's default and a brand's own region on Settings, the run
taking it at start (and keeping it), the offline drafter writing it, the real model's tasks
carrying it, and the checks accepting the region's line (and calling another region's out)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import service
from engine.checks import crisis
from engine.checks.request_coverage import protocol_findings
from engine.errors import InvalidInput
from engine.llm.offline.protocol.critics import review_safety
from engine.pipelines.base import DraftTask, ReviewTask
from engine.pipelines.protocol.critics import _render_review_task
from engine.pipelines.protocol.spec import _render_draft_task
from engine.region_settings import get_region_settings, set_brand_region, set_clinic_region
from engine.views import get_run
from tests.test_pages import app, drive

SUICIDAL = "A safety plan for a young man with suicidal thoughts"


@pytest.fixture(autouse=True)
def _db(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DRAFTROOM_INAPP_WORKER", "0")
    yield


def _note(text: str) -> str:
    return text[text.index("## Safety note"):]


def test_every_region_loads_with_a_note_naming_its_own_line() -> None:
    regions = crisis.regions()
    assert {"us", "uk", "ie", "ca", "au", "nz", "eu"} <= set(regions)
    for r in regions.values():
        assert all(crisis.mentions_line(n, r) for n in r.note), r.code
    assert crisis.mentions_line("call Samaritans on 116123", regions["uk"])
    assert crisis.mentions_line("Lifeline on 13 11 14", regions["au"])
    assert not crisis.mentions_line("it costs $1,000 a year", regions["au"])  # not "000"
    assert crisis.foreign_lines("call or text 988", regions["uk"]) == ["988"]
    assert crisis.foreign_lines("Samaritans on 116 123", regions["ie"]) == []  # shared


def test_a_run_takes_the_clinic_region_its_own_or_its_brands() -> None:
    def start(**extra: object) -> dict:
        run_id = service.start_run(kind="protocol", actor="dr. lee",
                                   input={"intent": "Help a nurse sleep", **extra})
        return get_run(run_id).input

    assert start().get("region") is None  # nothing set: the drafter reads the request
    set_clinic_region(code="UK", actor="admin")
    assert get_region_settings().clinic == "uk"
    assert start()["region"] == "uk"
    assert start(region="au")["region"] == "au"  # the starter's choice wins
    with pytest.raises(InvalidInput, match="unknown region 'xx'"):
        start(region="xx")
    with pytest.raises(InvalidInput, match="unknown region"):
        set_clinic_region(code="atlantis", actor="admin")
    assert get_region_settings().clinic == "uk"  # the bad value changed nothing

    from engine.pipelines.campaign.brands import list_brands
    brands = list_brands()
    set_brand_region(brand_id=brands[0].id, code="ie", actor="admin")

    def campaign(brand_id: int) -> dict:
        run_id = service.start_run(kind="campaign", actor="mo", input={
            "brand_id": brand_id, "brand_name": "B", "goal": "More weekend visitors",
            "audience": "students", "budget": 1000, "channels": ["email"]})
        return get_run(run_id).input

    assert campaign(brands[0].id)["region"] == "ie"
    assert campaign(brands[1].id)["region"] == "uk"  # no region of its own: the clinic's


@pytest.mark.parametrize(("code", "expect", "never"), [
    ("uk", "116 123", "988"), ("au", "13 11 14", "988"), ("ca", "9-8-8", "Samaritans"),
    ("us", "988", "116 123")])
def test_the_offline_drafter_writes_the_regions_line(code: str, expect: str, never: str) -> None:
    run_id = service.start_run(kind="protocol", actor="dr. lee",
                               input={"intent": SUICIDAL, "audience": "adults", "region": code})
    drive()
    detail = get_run(run_id)
    note = _note(detail.current.content)  # type: ignore[union-attr]
    assert expect in note and never not in note
    assert not [f for f in detail.current.flags  # type: ignore[union-attr]
                if "crisis line" in f.text]


def test_the_checks_accept_the_regions_line_and_call_another_regions_out() -> None:
    us_note = ("# Plan\n\n## Steps\n\n1. Write your safety plan.\n2. Wait ten minutes.\n\n"
               "## Safety note\n\nIf you feel unsafe, call or text 988.\n")
    uk_note = us_note.replace("call or text 988", "call Samaritans on 116 123")
    missing = [f.text for f in protocol_findings(us_note, {"intent": SUICIDAL, "region": "uk"})]
    assert "a request about suicidal thoughts without a crisis line" in missing
    for text, code in ((uk_note, "uk"), (us_note, "us")):
        found = [f.text for f in protocol_findings(text, {"intent": SUICIDAL, "region": code})]
        assert "a request about suicidal thoughts without a crisis line" not in found

    review = review_safety(ReviewTask(kind="protocol", stage="draft", content=us_note,
                                      input={"intent": SUICIDAL, "region": "uk"}))
    critical = [n.text for n in review.notes if n.priority == "critical"]
    assert any("gives 988, which a reader in United Kingdom cannot call" in t for t in critical)
    ok = review_safety(ReviewTask(kind="protocol", stage="draft", content=uk_note,
                                  input={"intent": SUICIDAL, "region": "uk"}))
    assert not [n for n in ok.notes if "crisis" in n.text and n.priority == "critical"]


def test_the_real_models_tasks_carry_the_regions_lines() -> None:
    data = {"intent": SUICIDAL, "audience": "adults", "region": "nz"}
    draft = _render_draft_task(DraftTask(kind="protocol", stage="draft", input=data,
                                         iteration=1))
    review = _render_review_task(ReviewTask(kind="protocol", stage="draft", input=data,
                                            content="x"))
    for told in (draft, review):
        assert "Crisis resources for the reader's region (New Zealand: emergency 111" in told
        assert "call or text 1737" in told and "988" not in told


def test_settings_page_sets_the_clinic_and_a_brands_region() -> None:
    from engine.pipelines.campaign.brands import list_brands

    at = app("admin").switch_page("pages/settings.py").run()
    assert not at.exception
    at.selectbox(key="region_clinic").set_value("au")
    brand = list_brands()[0]
    at.selectbox(key=f"region_brand_{brand.id}").set_value("nz")
    next(b for b in at.button if b.label == "Save regions").click().run()
    assert not at.exception
    assert get_region_settings().clinic == "au"
    assert get_region_settings().brands == {brand.id: "nz"}
    assert any("Australia" in s.value for s in at.success)

    start = app().switch_page("pages/start.py").run()
    assert "Clinic default (Australia)" in start.selectbox(key="p_region").options


def test_the_command_line_takes_a_region_and_refuses_an_unknown_one(capsys) -> None:  # type: ignore[no-untyped-def]
    from engine.interfaces.cli import main
    from engine.run_list import list_runs

    assert main(["run", "protocol", "--intent", SUICIDAL, "--region", "ie", "--no-wait"]) == 0
    assert get_run(list_runs()[0].id).input["region"] == "ie"
    assert main(["run", "protocol", "--intent", SUICIDAL, "--region", "mars", "--no-wait"]) != 0
    assert "unknown region 'mars'" in capsys.readouterr().err
    assert len(list_runs()) == 1  # nothing started
