"""One definition each of "an unchanged revision" (the loop's stall and the no-change check)
and of "sign-in is configured" (the launcher's refusal and the acts that need a verified
name): two places asking the same question get the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.checks.feedback_coverage import no_change_findings
from engine.checks.terms import terms
from engine.interfaces.serve import refusal
from engine.loop.decide import unchanged
from engine.signin import signin_configured

DRAFT = "\n".join(
    f"{i}. Step {i}: breathe in for 4 counts, hold, then breathe out slowly and name "
    f"{i + 2} things you can see around the exam hall before you read the first question."
    for i in range(1, 30))


def test_a_changed_number_is_a_change_however_long_the_draft() -> None:
    moved = DRAFT.replace("for 4 counts", "for 6 counts", 1)
    # A few characters in a long text: a similarity ratio alone called this no change.
    assert not unchanged(DRAFT, moved)
    assert not no_change_findings("protocol", moved, DRAFT)


def test_the_loop_and_the_check_agree_on_what_repeats() -> None:
    spaced = DRAFT.replace("\n", "\n\n").replace("step", "Step")
    assert unchanged(DRAFT, spaced)
    assert [f.category for f in no_change_findings("protocol", spaced, DRAFT)] == ["no_change"]
    reworded = DRAFT.replace("name", "count", 3)  # three words: a revision
    assert not unchanged(DRAFT, reworded)
    assert not no_change_findings("protocol", reworded, DRAFT)


def test_cached_terms_are_a_fresh_set_each_time() -> None:
    got = terms("Exam panic before the morning paper")
    got.add("mutated")
    assert "mutated" not in terms("Exam panic before the morning paper")


@pytest.fixture()
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DRAFTROOM_REQUIRE_SIGNIN", raising=False)
    path = tmp_path / ".streamlit" / "secrets.toml"
    path.parent.mkdir()
    return path


def test_a_half_written_auth_section_is_not_sign_in(secrets: Path, tmp_path: Path) -> None:
    # st.login cannot sign anyone in with this, so acts must not demand a login either.
    secrets.write_text('[auth]\nredirect_uri = "https://desk.example/oauth2callback"\n')
    assert not signin_configured(tmp_path)
    assert refusal("0.0.0.0", tmp_path) is not None
    secrets.write_text(
        '[auth]\nredirect_uri = "https://desk.example/oauth2callback"\n'
        'cookie_secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t"\nclient_id = "desk"\n'
        'client_secret = "x"\n'
        'server_metadata_url = "https://id.example/.well-known/openid-configuration"\n')
    assert signin_configured(tmp_path)
    assert refusal("0.0.0.0", tmp_path) is None


def test_the_environment_forces_either_way(secrets: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    secrets.write_text("not toml [")  # unreadable: as if there were none
    assert not signin_configured(tmp_path)
    monkeypatch.setenv("DRAFTROOM_REQUIRE_SIGNIN", "1")
    assert signin_configured(tmp_path)
    monkeypatch.setenv("DRAFTROOM_REQUIRE_SIGNIN", "0")
    assert not signin_configured(tmp_path)
