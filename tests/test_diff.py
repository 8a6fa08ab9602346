"""Draft diffs, flag segments and the Markdown built from untrusted text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.checks.base import FlagOut
from engine.diff import side_by_side, stats, unified, word_diff, word_spans
from engine.highlight import segments, unlocated
from ui.markdown import (
    demote_headings,
    escape,
    escape_inline,
    flagged_draft,
    inline_diff,
    side_by_side_table,
)

OLD = "# Title\n\nStep one is here.\nStep two.\nA\nB\nC\nD\nE\nF\nG\nEnd."
NEW = "# Title\n\nStep one is over there.\nStep 2.\nNew line\nA\nB\nC\nD\nE\nF\nG\nEnd!"


def test_changed_lines_pair_up_with_word_level_changes() -> None:
    rows = side_by_side(OLD, NEW, context=None)
    kinds = [r.kind for r in rows]
    assert kinds[:5] == ["equal", "equal", "replace", "replace", "insert"]
    step_one = rows[2]
    assert [(s.text, s.kind) for s in step_one.inline] == [
        ("Step one is ", "equal"), ("here", "delete"), ("over there", "insert"), (".", "equal")]
    assert (step_one.old_no, step_one.new_no) == (3, 3)
    assert rows[4].new_no == 5 and rows[4].old_no is None


def test_a_rewritten_line_is_shown_as_out_and_in_not_word_soup() -> None:
    rows = side_by_side("Keep\nBreathe slowly through your nose.\n",
                        "Keep\nWrite down three things you noticed today.\n", context=None)
    assert [r.kind for r in rows] == ["equal", "delete", "insert"]


def test_long_unchanged_runs_fold_with_context() -> None:
    old = "\n".join(f"line {i}" for i in range(30))
    new = old.replace("line 15", "line fifteen")
    rows = side_by_side(old, new, context=2)
    assert [r.kind for r in rows] == ["skip", "equal", "equal", "replace", "equal", "equal", "skip"]
    assert rows[0].skipped == 13 and rows[-1].skipped == 12
    assert len(side_by_side(old, new, context=None)) == 30


def test_stats_and_unified() -> None:
    s = stats(OLD, NEW)
    assert (s.added, s.removed, s.changed) == (1, 0, 3)
    assert stats(OLD, OLD).identical
    u = unified(OLD, NEW, from_label="v1", to_label="v2")
    assert u.startswith("--- v1\n+++ v2\n@@")
    assert "-Step two.\n" in u and "+Step 2.\n" in u
    assert unified(OLD, OLD) == ""


@given(st.text(max_size=80), st.text(max_size=80))
def test_word_diff_rebuilds_both_lines(a: str, b: str) -> None:
    a, b = a.replace("\n", " "), b.replace("\n", " ")
    spans = word_diff(a, b)
    assert "".join(s.text for s in spans if s.kind != "insert") == a
    assert "".join(s.text for s in spans if s.kind != "delete") == b
    left, right = word_spans(a, b)
    assert "".join(s.text for s in left) == a and "".join(s.text for s in right) == b


# -- flags -------------------------------------------------------------------------------------


def flag(text: str, content: str, category: str = "medication", shift: int = 0) -> FlagOut:
    at = content.find(text)
    return FlagOut(category=category, text=text, start=at + shift, end=at + shift + len(text))


DRAFT = "## Steps\n\n1. Breathe out slowly.\n2. Stop taking your medication.\n3. Rest."


def test_segments_cut_at_flags_and_rebuild_the_text() -> None:
    f = flag("Stop taking your medication.", DRAFT)
    segs = segments(DRAFT, [f])
    assert "".join(s.text for s in segs) == DRAFT
    assert [s.text for s in segs if s.flagged] == ["Stop taking your medication."]
    assert segs[1].categories == ("medication",)


def test_stale_offsets_are_found_by_text_and_missing_flags_reported() -> None:
    moved = flag("Stop taking your medication.", DRAFT, shift=5)
    assert [s.text for s in segments(DRAFT, [moved]) if s.flagged] == [moved.text]
    gone = FlagOut(category="self_harm", text="not in the draft", start=0, end=16)
    assert unlocated(DRAFT, [moved, gone]) == [gone]


def test_overlapping_flags_merge_categories() -> None:
    content = "Alpha beta gamma delta."
    a = FlagOut(category="a", text="Alpha beta gamma", start=0, end=16)
    b = FlagOut(category="b", text="beta gamma delta", start=6, end=22)
    segs = segments(content, [a, b])
    assert [(s.text, s.categories) for s in segs] == [
        ("Alpha ", ("a",)), ("beta gamma", ("a", "b")), (" delta", ("b",)), (".", ())]


def test_flagged_sentence_is_highlighted_and_the_list_stays_a_list() -> None:
    md = flagged_draft(segments(DRAFT, [flag("Stop taking your medication.", DRAFT)]))
    assert "2. :red-background[Stop taking your medication\\.]" in md
    assert md.startswith("## Steps\n\n1. Breathe out slowly.")


def test_flag_at_a_line_start_keeps_the_heading_marker_outside() -> None:
    content = "# Stop taking your medication\nNext."
    f = FlagOut(category="medication", text="# Stop taking your medication", start=0, end=29)
    md = flagged_draft(segments(content, [f]))
    assert md.startswith("# :red-background[Stop taking your medication]")


def test_flagged_text_cannot_break_out_of_its_highlight() -> None:
    content = "Intro. Evil ] :blue[x] <script>alert(1)</script> [link](javascript:x). End"
    text = "Evil ] :blue[x] <script>alert(1)</script> [link](javascript:x)."
    md = flagged_draft(segments(content, [flag(text, content)]))
    inner = md[md.index(":red-background[") + len(":red-background["):md.rindex("]")]
    # Every bracket, colon, angle bracket and parenthesis inside is escaped.
    assert not re.search(r"(?<!\\)[\[\]():<>]", inner)


# -- Markdown from untrusted text --------------------------------------------------------------


def test_escape_makes_every_punctuation_literal() -> None:
    assert escape("# *a* [b](c) <i>") == "\\# \\*a\\* \\[b\\]\\(c\\) \\<i\\>"
    assert escape("a\nb") == "a  \nb"
    assert escape_inline("a\nb|c") == "a b\\|c"


def test_side_by_side_table_escapes_cells_and_pipes() -> None:
    img = "<img src=x onerror=alert(1)>"
    rows = side_by_side(f"a | b\n{img}", f"a | c\n{img}")
    table = side_by_side_table(rows, left="v1 · drafter", right="v2 · Dr. <b>Lee</b>")
    lines = table.splitlines()
    assert lines[0] == "| v1 · drafter | v2 · Dr\\. \\<b\\>Lee\\<\\/b\\> |"
    # Exactly three unescaped pipes per row: the cell borders.
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 3 for line in lines)
    assert "a \\| :green-background[c]" in table
    assert not re.search(r"(?<!\\)<", table)


def test_inline_diff_strikes_removals_and_marks_additions() -> None:
    md = inline_diff(side_by_side("Breathe in for four.", "Breathe in for five."))
    assert md == "Breathe in for :red-background[~~four~~]:green-background[five]\\."


def test_demote_headings_leaves_code_blocks_alone() -> None:
    md = "# Title\n## Part\n```\n# not a heading\n```\n#hashtag"
    assert demote_headings(md) == "### Title\n#### Part\n```\n# not a heading\n```\n#hashtag"
