"""Answers for the fake OpenAI server that play the protocol team: a drafter whose drafts
number themselves, and critics whose clinical score rises with each review, so a run takes
a known number of iterations."""

from __future__ import annotations

import itertools
import threading
from typing import Any


class ProtocolTeam:
    def __init__(self, clinical_scores: list[float] | None = None) -> None:
        self.clinical = clinical_scores or [0.5, 0.6, 0.9]
        self._drafts = itertools.count(1)
        self._reviews = itertools.count(0)
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> dict[str, Any] | None:
        system = request["messages"][0]["content"]
        with self._lock:
            if "You are the Drafter" in system:
                n = next(self._drafts)
                return {
                    "title": f"Paced breathing, draft {n}",
                    "purpose": "It is understandable to feel panic; this helps you slow down.",
                    "steps": ["Breathe in for four.", "Breathe out for six.", "Repeat for two minutes.",
                              "Notice how your body feels."],
                    "reflection": ["What did you notice?", "When will you practise next?"],
                    "safety_note": "If you feel unsafe, call or text 988 or contact your clinician.",
                }
            if "Safety Guardian" in system:
                return {"safety": 0.95, "notes": []}
            if "Clinical Critic" in system:
                i = next(self._reviews)
                score = self.clinical[min(i, len(self.clinical) - 1)]
                return {"empathy": 0.9, "clinical": score,
                        "notes": [{"target": "drafter", "priority": "warning",
                                   "text": "Make the steps more concrete."}]}
        return None
