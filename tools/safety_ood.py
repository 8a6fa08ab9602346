"""False alarms of the safety screen on safe text the corpus was not written like: the
clinicians' own requests and comments in the coverage sets (tests/data/coverage_fresh*.json),
and every sentence the offline drafter screens while drafting for them (it drops what the
screen flags, so a false alarm there silently loses a step: "Next, spend longer driving on the
motorway ..."). The blind sets measure the screen on passages written to its brief; this
measures what a lower threshold costs on everything else. Session 9 chose MODEL_THRESHOLD with
both (tools/safety_cv.py).

    python -m tools.safety_ood [THRESHOLD/AIMED_BARE/BARE[/FRAME] ...]   e.g. 0.6/0.2/0.2/1.0

With no argument it reports the screen as configured; `--list` prints the flagged texts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.checks import safety
from engine.llm.offline.protocol import common

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def _clinician_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted(DATA.glob("coverage_fresh*.json")):
        cases = json.loads(path.read_text(encoding="utf-8"))
        for key in ("protocol", "protocol_feedback", "campaign", "campaign_feedback"):
            for case in cases.get(key, []):
                texts += [case[f] for f in ("intent", "comment", "goal") if case.get(f)]
    return list(dict.fromkeys(texts))


def _drafter_texts() -> list[str]:
    """What the offline drafter hands the screen while drafting the coverage sets' requests and
    revising them after their comments (each call recorded, drafting itself unchanged)."""
    from tools.safety_drafts_corpus import _draft

    seen: list[str] = []
    screen = common.screen_protocol

    def record(text: str):
        seen.append(text)
        return screen(text)

    common.screen_protocol = record
    common._screen.cache_clear()  # noqa: SLF001 - every call must reach the recorder
    try:
        for path in sorted(DATA.glob("coverage_fresh*.json")):
            cases = json.loads(path.read_text(encoding="utf-8"))
            for case in cases.get("protocol", []):
                _draft(case["intent"])
            for case in cases.get("protocol_feedback", []):
                first = _draft(case["intent"])
                _draft(case["intent"], previous=first, feedback=[case["comment"]])
    finally:
        common.screen_protocol = screen
        common._screen.cache_clear()  # noqa: SLF001
    return list(dict.fromkeys(seen))


def _configure(spec: str) -> None:
    threshold, aimed, bare, *frame = (float(x) for x in spec.split("/"))
    safety.MODEL_THRESHOLD = threshold  # the rules' veto follows it (safety.rule_veto)
    safety.AIMED_BARE_PENALTY, safety.BARE_PENALTY = aimed, bare
    safety.FRAME_PENALTY = frame[0] if frame else safety.FRAME_PENALTY


def main(argv: list[str]) -> int:
    show = "--list" in argv
    specs = [a for a in argv if a != "--list"] or [
        f"{safety.MODEL_THRESHOLD}/{safety.AIMED_BARE_PENALTY}/{safety.BARE_PENALTY}/"
        f"{safety.FRAME_PENALTY}"]
    texts = {"clinicians' requests and comments": _clinician_texts(),
             "sentences the drafter screens": _drafter_texts()}
    for spec in specs:
        _configure(spec)
        for name, items in texts.items():
            flagged = [t for t in items if safety.screen_protocol(t).flags]
            print(f"{spec:>16}  {name}: {len(flagged)} of {len(items)} flagged "
                  f"({len(flagged) / max(len(items), 1):.3f})")
            for t in flagged if show else []:
                f = safety.screen_protocol(t).flags[0]
                print(f"      {f.category}: {f.text[:160]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
