"""The offline protocol agents' library, loaded once from data files (data/*.json); no logic
lives here. The composition is in drafter.py, the rubrics in critics.py.

data/exercises.json
- templates: one exercise per protocol EXERCISE_TYPES entry. "keywords" are
  regular-expression fragments matched after a word boundary in the intent (so "depress"
  also finds "depressed" and "exams?\\b" does not find "example"); the weights add up per
  exercise and the highest total wins (ties: file order). Placeholders: {setting} (where or
  when the audience would practise) and {support} (the people they can turn to). Each step
  is [core, warm]: the core is the action, the warm sentence validates (or null); a colder
  first draft leaves the warm sentences out. Template sentences avoid words the safety
  screen or the empathy rubric would object to (no "just", no "hold your breath", no
  medication talk).
- default_exercise: the stable fallback when no keyword points anywhere.
- topic_steps: steps a person can ask for by topic ("add a step about journaling").
- journal_step: the step added when a note asks for a way to keep track.

data/language.json
- audiences: profiles matched by substring on the audience, first wins ("parents of teens"
  are parents, so parents come first); the last one is the default.
- crisis_extra, professional_line: the safety note's lines beside the region's crisis lines
  (engine/checks/data/crisis_regions.toml); the drafter uses the first candidate that the
  safety screen accepts.
- crisis_pattern, professional_pattern, validating_phrases, judgemental_swaps,
  plain_swaps (plainer words for "use simpler words" and young audiences), wordy_clauses
  (padding a weaker first draft adds), imperative_verbs, skippable_leads: word lists the
  offline critics and the drafter share.
- feared_things: what an exposure request fears when no phrase of it says (see "_feared_things")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def _frozen(value: Any) -> Any:
    """JSON arrays as tuples: the library is shared, read-only, by every draft."""
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _load(name: str) -> dict[str, Any]:
    return _frozen(json.loads((DATA / name).read_text(encoding="utf-8")))


_EXERCISES = _load("exercises.json")
_LANGUAGE = _load("language.json")

TEMPLATES: dict[str, dict[str, Any]] = _EXERCISES["templates"]
DEFAULT_EXERCISE: str = _EXERCISES["default_exercise"]
TOPIC_STEPS: tuple[tuple[tuple[str, ...], str], ...] = _EXERCISES["topic_steps"]
JOURNAL_STEP: str = _EXERCISES["journal_step"]
FOCUS_FRAMES: dict[str, Any] = _EXERCISES["focus_frames"]  # a technique may have its own
SITUATIONS: dict[str, dict[str, Any]] = {
    k: v for k, v in _EXERCISES["situations"].items() if not k.startswith("_")}

AUDIENCES: tuple[dict[str, Any], ...] = _LANGUAGE["audiences"]
CRISIS_EXTRA: dict[str, str] = _LANGUAGE["crisis_extra"]
PROFESSIONAL_LINE: str = _LANGUAGE["professional_line"]
CRISIS_PATTERN: str = _LANGUAGE["crisis_pattern"]
PROFESSIONAL_PATTERN: str = _LANGUAGE["professional_pattern"]
VALIDATING_PHRASES: tuple[str, ...] = _LANGUAGE["validating_phrases"]
JUDGEMENTAL_SWAPS: dict[str, str] = _LANGUAGE["judgemental_swaps"]
PLAIN_SWAPS: dict[str, str] = _LANGUAGE["plain_swaps"]
WORDY_CLAUSES: tuple[str, ...] = _LANGUAGE["wordy_clauses"]
IMPERATIVE_VERBS: frozenset[str] = frozenset(_LANGUAGE["imperative_verbs"])
SKIPPABLE_LEADS: frozenset[str] = frozenset(_LANGUAGE["skippable_leads"])
FEARED_THINGS: tuple[tuple[str, str], ...] = _LANGUAGE["feared_things"]
PHOBIA_THINGS: tuple[tuple[str, str], ...] = _LANGUAGE["phobia_things"]
SENSATIONS: tuple[tuple[str, str], ...] = _LANGUAGE["sensations"]
