"""Score how campaigns follow the length their goal gives (tests/data/campaign_span_eval.json):
the offline brief's timeline and plan's schedule span the goal's weeks, and the consistency
check flags a timeline of another length (a fixed five weeks) but not one of the right length.

    python -m tools.evaluate_span [tests/data/campaign_span_eval.json]

A length counts as right within the check's own tolerance (a quarter of it, at least a week);
a goal that gives none expects the default five weeks and no flag."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engine.checks.campaign_consistency import _spanned_weeks, campaign_findings
from engine.checks.terms import section
from engine.llm.offline.campaign.brief import draft_brief
from engine.pipelines.base import DraftTask
from engine.pipelines.campaign.goal import DEFAULT_WEEKS
from engine.pipelines.campaign.text import render_brief

DEFAULT = Path("tests/data/campaign_span_eval.json")


def _close(got: float | None, want: int) -> bool:
    return got is not None and abs(got - want) <= max(1.0, want / 4)


def _timeline(weeks: int) -> str:
    """A brief's timeline over `weeks` weeks, as a drafter of any backend might write it."""
    return ("# Brief\n\n## Timeline\n\n- Week 1: creators contacted\n"
            f"- Weeks 2-{max(2, weeks - 1)}: posts go live\n- Week {weeks}: results gathered\n")


def _flags(goal: str, text: str, today: str) -> bool:
    found = campaign_findings("brief", text, {"goal": goal}, {"today": today})
    return any(f.category == "timeline_mismatch" and "spans" in f.text for f in found)


def score_case(case: dict[str, Any], today: str) -> dict[str, Any]:
    goal, want = case["goal"], case["weeks"] or DEFAULT_WEEKS
    run_input = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": goal,
                 "audience": "local families", "budget": 3000, "channels": ["email"],
                 "num_creators": 3}
    task = DraftTask(kind="campaign", stage="brief", input=run_input, iteration=1,
                     context={"today": today})
    brief = render_brief(draft_brief(task))
    spanned = _spanned_weeks(section(brief, "timeline"))
    wrong_default = not _close(DEFAULT_WEEKS, want)
    return {"goal": goal, "want": want, "brief_spans": spanned,
            "brief_ok": _close(spanned, want),
            # a fixed five weeks is flagged exactly when it is the wrong length
            "flags_default": _flags(goal, _timeline(DEFAULT_WEEKS), today),
            "wrong_default": wrong_default,
            "flags_right": _flags(goal, _timeline(want), today)}


def main(argv: list[str]) -> int:
    data = json.loads(Path(argv[0] if argv else DEFAULT).read_text())
    rows = [score_case(c, data["today"]) for c in data["cases"]]
    for r in rows:
        mark = "ok " if r["brief_ok"] else "BAD"
        print(f"{mark} want {r['want']:>2} brief {r['brief_spans']!s:>5} "
              f"flag5={'y' if r['flags_default'] else 'n'} flagright="
              f"{'y' if r['flags_right'] else 'n'}  {r['goal']}")
    n = len(rows)
    wrong = [r for r in rows if r["wrong_default"]]
    print(f"brief timeline spans the goal's length: {sum(r['brief_ok'] for r in rows)}/{n}")
    print(f"check flags a fixed 5 weeks where wrong: {sum(r['flags_default'] for r in wrong)}"
          f"/{len(wrong)}; false alarms on 5 weeks where right: "
          f"{sum(r['flags_default'] for r in rows if not r['wrong_default'])}"
          f"/{n - len(wrong)}; false alarms on the right length: "
          f"{sum(r['flags_right'] for r in rows)}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
