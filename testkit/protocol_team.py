"""Answers for the fake OpenAI server that play the protocol team. Everything follows the
request's text, never a call counter, so a call cut off by a killed process and made again
gets the same answer: draft N+1 follows draft N, and the Clinical Critic scores draft N with
clinical_scores[N-1] (the last value for later drafts)."""

from __future__ import annotations

import re
from typing import Any

_DRAFT_NO = re.compile(r"draft (\d+)")
CONCRETE = [f"Before exam {k}, practise it once at your desk, once in the corridor and once in "
            f"the exam hall's waiting area (round {k})." for k in range(1, 40)]


_INTENT = re.compile(r"^Intent: (.+)$", re.M)
_FILLER = frozenset("a an the and or of to for in on at with about after before from my i me "
                    "help get how when what".split())


def situation_words(user_prompt: str) -> list[str]:
    """The request's own words (the drafter's prompt carries it as "Intent: ..."), without
    the filler: what a drafter that follows the request builds its steps from."""
    found = _INTENT.search(user_prompt)
    words = re.findall(r"[a-z']+", found.group(1).lower()) if found else []
    return [w for w in words if w not in _FILLER and len(w) > 2]


class ProtocolTeam:
    def __init__(self, clinical_scores: list[float] | None = None, *,
                 follow_request: bool = False) -> None:
        self.clinical = clinical_scores or [0.5, 0.6, 0.9]
        # False: the same exam-panic exercise whatever was asked (a model that ignores the
        # request; the request-coverage check sends it back). True: the steps work with the
        # request's own situation, as a model doing its job would (the benches' runs then
        # take the iterations their clinical scores say, not the iteration limit).
        self.follow_request = follow_request

    @staticmethod
    def _draft_no(text: str) -> int:
        found = _DRAFT_NO.findall(text)
        return int(found[-1]) if found else 0

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"]
        if "You are the Drafter" in system:
            n = self._draft_no(user) + 1  # the previous draft, if any, is in the prompt
            return {
                "title": f"Paced breathing, draft {n}",
                "purpose": "It is understandable to feel panic; this helps you slow down.",
                # Each revision answers "more concrete" with a step of its own: a real change,
                # not a renumbered copy (the loop counts a near-identical revision as a stall).
                "steps": [*self._own_steps(user),
                          "When exam panic starts, breathe in for four.", "Breathe out for six.",
                          "Repeat for two minutes.", "Notice how the panic in your body eases.",
                          *CONCRETE[: max(0, n - 1)]],
                "reflection": ["What did you notice?", "When will you practise next?"],
                "safety_note": "If you feel unsafe, call or text 988 or contact your clinician.",
            }
        if "Safety Guardian" in system:
            return {"safety": 0.95, "notes": []}
        if "Clinical Critic" in system:
            n = max(1, self._draft_no(user))
            score = self.clinical[min(n, len(self.clinical)) - 1]
            return {"empathy": 0.9, "clinical": score,
                    "notes": [{"target": "drafter", "priority": "warning",
                               "text": "Make the steps more concrete."}]}
        return None

    def _own_steps(self, user: str) -> list[str]:
        words = situation_words(user) if self.follow_request else []
        if not words:
            return []
        return [f"Write down where this shows up for you: {', '.join(reversed(words))}.",
                f"Pick the easiest moment of it ({' / '.join(words)}) to practise first."]
