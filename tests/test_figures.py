"""The score history chart, built from a read model without a browser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.views import DraftView, RunDetail
from ui.figures import score_history_figure

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
THRESHOLDS = {"safety": 0.8, "empathy": 0.7, "clinical": 0.7}


def draft(version: int, scores: dict[str, float], *, human: str | None = None) -> DraftView:
    return DraftView(id=100 + version, version=version, stage="draft",
                     author=human or "drafter", author_kind="human" if human else "agent",
                     content=f"v{version}", parent_id=None, iteration=version, created_at=NOW,
                     scores=scores, flags=[])


def detail(drafts: list[DraftView], *, approved: int | None = None) -> RunDetail:
    return RunDetail(
        id=1, kind="protocol", title="t", status="awaiting_review", stage="draft", iteration=2,
        halt_reason=None, created_by="x", created_at=NOW, updated_at=NOW, cost_usd=0.0,
        version=3, scores={}, open_flags=0, input={}, params={}, next_node=None, error=None,
        budget_usd=None, current_draft_id=drafts[-1].id if drafts else None, best_draft_id=None,
        approved_draft_id=approved, parent_run_id=None, parent_draft_id=None,
        thresholds=THRESHOLDS, max_iterations=5, stages=["draft"], drafts=drafts, notes=[],
        actions=[], steps=[], calls=0, tokens=0)


def traces(fig, role: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {t.meta["score"]: t for t in fig.data if t.meta and t.meta["role"] == role}


def test_one_line_per_score_across_versions_in_order() -> None:
    d = detail([draft(1, {"safety": 0.5, "empathy": 0.6, "clinical": 0.4}),
                draft(2, {"safety": 0.9, "empathy": 0.75, "clinical": 0.8})])
    fig = score_history_figure(d)
    scores = traces(fig, "score")
    assert list(scores) == ["safety", "empathy", "clinical"]
    assert list(scores["safety"].y) == [0.5, 0.9]
    # Points sit on their version (a small sideways shift keeps equal scores apart).
    for t in scores.values():
        assert [round(x) for x in t.x] == [1, 2]
    assert list(fig.layout.xaxis.ticktext) == ["v1", "v2"]


def test_thresholds_are_dashed_lines_in_the_score_colour_and_labelled() -> None:
    fig = score_history_figure(detail([draft(1, {"safety": 0.9, "empathy": 0.8,
                                                "clinical": 0.8})]))
    lines = traces(fig, "threshold")
    scores = traces(fig, "score")
    assert set(lines) == set(THRESHOLDS)
    for name, t in lines.items():
        assert set(t.y) == {THRESHOLDS[name]}
        assert t.line.dash == "dash"
        assert t.line.color == scores[name].line.color
    labels = {a.text for a in fig.layout.annotations}
    assert "safety ≥ 0.80" in labels
    assert "empathy, clinical ≥ 0.70" in labels  # equal thresholds share one label


def test_human_versions_are_stars_with_a_marker_line_naming_the_person() -> None:
    d = detail([draft(1, {"safety": 0.9}), draft(2, {"safety": 0.95}, human="Dr. Lee"),
                draft(3, {"safety": 0.85})])
    fig = score_history_figure(d)
    safety = traces(fig, "score")["safety"]
    assert list(safety.marker.symbol) == ["circle", "star", "circle"]
    assert [s.x0 for s in fig.layout.shapes if s.type == "line"] == [2]
    assert "✎ Dr. Lee" in {a.text for a in fig.layout.annotations}


def test_approved_version_is_banded() -> None:
    d = detail([draft(1, {"safety": 0.9}), draft(2, {"safety": 0.95})], approved=102)
    fig = score_history_figure(d)
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(bands) == 1 and bands[0].x0 < 2 < bands[0].x1
    assert "approved" in {a.text for a in fig.layout.annotations}


def test_a_version_not_scored_yet_has_a_tick_but_no_point() -> None:
    d = detail([draft(1, {"safety": 0.9}), draft(2, {}, human="Ana")])
    fig = score_history_figure(d)
    assert list(fig.layout.xaxis.ticktext) == ["v1", "v2"]
    assert [round(x) for x in traces(fig, "score")["safety"].x] == [1]


def test_no_scores_yet_says_so() -> None:
    fig = score_history_figure(detail([draft(1, {})]))
    assert any("No scores yet" in (a.text or "") for a in fig.layout.annotations)
    assert fig.layout.yaxis.range == (0, 1.08)


@pytest.mark.parametrize("name", ["<b>Eve</b>", "<script>x</script>"])
def test_names_typed_by_people_are_not_markup_in_the_chart(name: str) -> None:
    fig = score_history_figure(detail([draft(1, {"safety": 0.9}, human=name)]))
    texts = [a.text for a in fig.layout.annotations] + [
        str(c) for t in fig.data for c in (t.customdata or [])]
    assert not any("<" in t or ">" in t for t in texts)


def test_a_long_run_labels_every_nth_version_so_the_labels_stay_readable() -> None:
    d = detail([draft(v, {"safety": 0.9}) for v in range(1, 167)])
    fig = score_history_figure(d)
    ticks = list(fig.layout.xaxis.tickvals)
    assert 8 <= len(ticks) <= 16
    assert ticks[0] == 1 and ticks == sorted(ticks)
    assert len(traces(fig, "score")["safety"].x) == 166  # every version is still drawn


def test_a_long_run_is_drawn_as_lines_with_a_star_only_where_a_person_wrote() -> None:
    d = detail([draft(v, {"safety": 0.9}, human="Dr. Lee" if v == 50 else None)
                for v in range(1, 167)])
    fig = score_history_figure(d)
    safety = traces(fig, "score")["safety"]
    assert safety.mode == "lines" and len(safety.x) == 166
    star = traces(fig, "person")["safety"]
    assert [round(x) for x in star.x] == [50] and star.marker.symbol == "star"
    assert star.legendgroup == safety.legendgroup and star.showlegend is False
    # A short run keeps a dot on every version, the person's a star on the line itself.
    short = score_history_figure(d.model_copy(update={"drafts": d.drafts[45:52]}))
    assert not traces(short, "person")
    assert list(traces(short, "score")["safety"].marker.symbol).count("star") == 1
