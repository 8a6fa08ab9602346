"""The review queue over more runs than a page: counts by SQL over every run, sections paged,
search by words in any order (SQLite FTS5 here; PostgreSQL full-text in
test_search_matches_words_in_any_order_on_both_databases), long titles cut with the full text
on hover."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from db.models import Run, utcnow
from db.session import session_scope
from engine.run_list import RunFilters, count_runs, list_runs
from engine.run_state import RunStatus
from testkit.queue_cards import card_links

APP = str(Path(__file__).resolve().parent.parent / "app.py")
LONG = ("Calm breathing for the panic in the days before exams, with a plan for the night "
        "before and the morning of the first paper")


@pytest.fixture
def _db(db_url: str) -> Iterator[None]:
    yield


pytestmark = pytest.mark.usefixtures("_db")


def add_runs(n: int, status: str, title: str = "Wind down before sleep") -> None:
    """Rows straight into the table: the queue reads whatever is there."""
    now = utcnow()
    with session_scope() as s:
        s.add_all(Run(kind="protocol", title=f"{title} {i}", status=status, stage="draft",
                      next_node=None, created_by="seed", updated_at=now - timedelta(seconds=i))
                  for i in range(n))


def queue() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "Dr. Lee"
    at.run()
    return at.switch_page("pages/queue.py").run()


def links(at: AppTest) -> list[str]:
    return [c.label for c in card_links(at)]


def test_counts_cover_every_run_and_every_section_shows() -> None:
    add_runs(1_100, RunStatus.REVIEW)
    add_runs(7, RunStatus.FAILED)
    add_runs(30, RunStatus.APPROVED)
    assert count_runs() == {RunStatus.REVIEW: 1_100, RunStatus.FAILED: 7,
                            RunStatus.APPROVED: 30}
    at = queue()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Awaiting review"] == "1,100"
    assert metrics["Failed"] == "7" and metrics["Approved"] == "30"
    headers = [h.value.split(" ", 1)[1] for h in at.subheader]
    assert headers == ["Needs a person (1,107)", "Finished (30)"]
    assert len(links(at)) == 20  # a page of 10 per section, not 1,137 cards


def test_a_section_pages_forward_and_back() -> None:
    add_runs(25, RunStatus.REVIEW)
    at = queue()
    first = links(at)
    assert len(first) == 10 and "1-10 of 25" in [c.value for c in at.caption]
    at.button(key="q_page_Needs a person_next").click().run()
    second = links(at)
    assert len(second) == 10 and not set(first) & set(second)
    at.button(key="q_page_Needs a person_next").click().run()
    assert len(links(at)) == 5 and "21-25 of 25" in [c.value for c in at.caption]
    at.button(key="q_page_Needs a person_prev").click().run()
    assert links(at) == second


def test_search_matches_words_in_any_order_and_word_endings() -> None:
    _search_finds_words_in_any_order()
    at = queue()
    at.text_input(key="q_search").set_value("exam panic").run()
    assert len(links(at)) == 1


@pytest.mark.postgres
def test_search_matches_words_in_any_order_on_postgresql(pg_url: str) -> None:
    from db.session import get_engine

    assert get_engine().dialect.name == "postgresql"
    _search_finds_words_in_any_order()


def _search_finds_words_in_any_order() -> None:
    add_runs(1, RunStatus.REVIEW, LONG)
    add_runs(3, RunStatus.REVIEW, "Sleep after night shifts")
    for query in ("exam panic", "panic exam", "EXAMS", "first paper calm", "exa"):
        found = list_runs(search=query)
        assert [r.title for r in found] == [f"{LONG} 0"], query
    assert list_runs(search="exam sleep") == []
    assert count_runs(RunFilters(search="night shifts")) == {RunStatus.REVIEW: 3}
    # What a person types is never read as query syntax.
    for odd in ('"', "OR", "panic -exam", "NEAR(exam panic)", "exam*", "a:b", "'; drop"):
        list_runs(search=odd)


def test_long_titles_are_cut_with_the_full_title_on_hover() -> None:
    add_runs(1, RunStatus.REVIEW, LONG)
    at = queue()
    [link] = card_links(at)
    shown = link.label.split(" · ", 1)[1]
    assert shown.endswith("…") and len(shown) <= 61
    assert link.hover == f"{LONG} 0"
