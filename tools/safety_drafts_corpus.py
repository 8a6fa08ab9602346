"""Writes tests/data/safety_drafts.jsonl: the sentences of the offline drafter's protocol drafts
(first versions and revisions after feedback, for the requests in offline_requests.json), as
safe examples for the safety classifier. Real drafts are what the screen reads on every loop;
without them the classifier learned that ordinary exposure wording ("staying until the anxiety
eases") looks like the dangerous practices in the corpus. A snapshot: re-run after the offline
drafter's wording changes.

    python -m tools.safety_drafts_corpus
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.checks.sentences import split_sentences
from engine.llm.offline.protocol.drafter import draft_protocol
from engine.pipelines.base import DraftTask
from engine.pipelines.protocol.text import render_protocol

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
OUT = DATA / "safety_drafts.jsonl"


def _draft(intent: str, previous: str | None = None, feedback: list[str] | None = None) -> str:
    d = draft_protocol(DraftTask(kind="protocol", stage="draft",
                                 input={"intent": intent, "audience": "adults"},
                                 iteration=2 if previous else 1, previous=previous,
                                 feedback=feedback or []))
    return render_protocol(d)


def sentences() -> list[str]:
    cases = json.loads((DATA / "offline_requests.json").read_text())
    texts: list[str] = []
    for name in ("development", "held_out"):
        for kind, items in cases[name].items():
            if kind == "campaign":
                continue
            for case in items:
                first = _draft(case[0])
                texts.append(first)
                if kind == "feedback":
                    texts.append(_draft(case[0], previous=first, feedback=[case[1]]))
    seen = dict.fromkeys(t[a:b] for t in texts for a, b in split_sentences(t))
    return [s for s in seen if len(s.split()) >= 4 and "Not applied" not in s]


def main() -> int:
    rows = [{"text": s, "categories": [], "split": "offline-drafts", "kind": "neutral",
             "source": "the offline drafter's own drafts (tools/safety_drafts_corpus.py)"}
            for s in sentences()]
    with OUT.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} sentences -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
