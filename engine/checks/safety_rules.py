"""The safety screen's rules, loaded from data files in engine/checks/data/:

- safety_lexicons.toml: vocabulary (medicines, clinicians, help, conditions, ...) and fragments
  that compose it; a rule or frame names one as <<name>>;
- safety_rules.toml: per category, the patterns that find an unsafe statement;
- safety_frames.toml: the patterns that say how a hit is framed (negated, conditional,
  quoted, routed through a clinician ...).

Everything is a regular expression over lower-cased, normalised text (sentences.py), so no
pattern needs IGNORECASE (which makes re several times slower). A bad data file fails at
import with the file and the entry named, never later on a draft."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
_REF = re.compile(r"<<(\w+)>>")

# The categories a rule file may hold, in the order the screen runs them.
RULE_SETS = ("self_harm", "medication", "diagnosis", "dangerous_practice", "alcohol_coping",
             "discourages_help")
KINDS = frozenset({"plain", "stmt", "needs_med"})


class RuleDataError(ValueError):
    """A data file of the safety screen is malformed (says which file and entry)."""


@dataclass(frozen=True)
class Near:
    """A topic and a frame within `window` characters, with none of `stops` between."""

    topic: re.Pattern[str]
    frame: re.Pattern[str]
    window: int
    stops: frozenset[str]

    def spans(self, s: str) -> Iterator[tuple[int, int]]:
        frames = [(m.start(), m.end()) for m in self.frame.finditer(s)]
        if not frames:
            return
        for t in self.topic.finditer(s):
            for fs, fe in frames:
                if fs < t.end() and fe > t.start():  # overlapping: "isn't depression"
                    lo = hi = fs
                else:
                    lo, hi = (t.end(), fs) if fs >= t.end() else (fe, t.start())
                if 0 <= hi - lo <= self.window and not self.stops.intersection(s[lo:hi]) \
                        and not _negates(s[lo:hi]):
                    yield min(t.start(), fs), max(t.end(), fe)


def _negates(gap: str) -> bool:
    """A negation between topic and frame breaks the pair ("lines aren't a waste of time")."""
    return bool(gap.strip()) and bool(
        FRAMES["neg"].search(FRAMES["not_negating"].sub(" ", gap)))


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str] | None
    """A regex rule; None for a near-rule."""
    kind: str
    """"plain", "stmt" or "needs_med" (see safety_rules.toml)."""
    near: Near | None = None

    def spans(self, s: str) -> Iterator[tuple[int, int]]:
        if self.near is not None:
            yield from self.near.spans(s)
        else:
            for m in self.pattern.finditer(s):
                yield m.start(), m.end()


def _read(name: str) -> dict:
    path = DATA_DIR / name
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise RuleDataError(f"{path}: {e}") from e


def _text(value: str | list[str], where: str) -> str:
    """A pattern is a string, or a list of pieces joined (so long patterns stay readable)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise RuleDataError(f"{where}: a pattern must be a string or a list of strings")


@cache
def vocabulary() -> dict[str, str]:
    """Every lexicon and fragment by name, as one regex each (references expanded)."""
    data = _read("safety_lexicons.toml")
    raw: dict[str, str] = {}
    for name, entries in data.get("lexicons", {}).items():
        if not isinstance(entries, list) or not entries:
            raise RuleDataError(f"safety_lexicons.toml: lexicon {name!r} must be a non-empty list")
        raw[name] = "(?:" + "|".join(_text(e, f"lexicon {name}") for e in entries) + ")"
    for name, value in data.get("fragments", {}).items():
        raw[name] = _text(value, f"fragment {name}")
    done: dict[str, str] = {}

    def resolve(name: str, stack: tuple[str, ...]) -> str:
        if name in done:
            return done[name]
        if name not in raw:
            raise RuleDataError(f"safety_lexicons.toml: unknown name <<{name}>> in {stack[-1]}")
        if name in stack:
            raise RuleDataError(f"safety_lexicons.toml: <<{name}>> refers to itself")
        done[name] = _REF.sub(lambda m: resolve(m.group(1), (*stack, name)), raw[name])
        return done[name]

    for name in raw:
        resolve(name, ("lexicons",))
    return done


def compile_pattern(text: str, where: str) -> re.Pattern[str]:
    """Expands <<name>> references and compiles; errors name the entry."""
    vocab = vocabulary()

    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in vocab:
            raise RuleDataError(f"{where}: unknown name <<{m.group(1)}>>")
        return vocab[m.group(1)]

    try:
        return re.compile(_REF.sub(sub, text))
    except re.error as e:
        raise RuleDataError(f"{where}: {e}") from e


def _near(entry: dict, where: str) -> Near:
    """A topic and a frame (two lexicon names) within `window` characters of each other in
    one sentence (or clause, with clause = true), in either order: "stop ... sertraline",
    "xanax: double up". Found with one scan for each, not one regex with a gap (which is
    several times slower)."""
    names = entry["near"]
    if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise RuleDataError(f"{where}: near must name two lexicons")
    window = entry.get("window", 60)
    if not isinstance(window, int) or not 0 <= window <= 200:
        raise RuleDataError(f"{where}: window must be a whole number from 0 to 200")
    topic, frame = (compile_pattern(rf"\b<<{n}>>\b", where) for n in names)
    return Near(topic, frame, window, frozenset(".!?;," if entry.get("clause") else ".!?;"))


def _rules(data: dict, category: str) -> list[Rule]:
    out = []
    for n, entry in enumerate(data.get(category, [])):
        where = f"safety_rules.toml [[{category}]] #{n + 1}"
        kind = entry.get("kind", "plain")
        if kind not in KINDS:
            raise RuleDataError(f"{where}: kind {kind!r} is not one of {sorted(KINDS)}")
        if "near" in entry:
            out.append(Rule(None, kind, _near(entry, where)))
        else:
            out.append(Rule(compile_pattern(_text(entry.get("pattern"), where), where), kind))
    return out


FRAMES: dict[str, re.Pattern[str]] = {
    name: compile_pattern(_text(value, f"safety_frames.toml {name}"), name)
    for name, value in _read("safety_frames.toml").get("frames", {}).items()
}
_RULE_DATA = _read("safety_rules.toml")
RULES: dict[str, list[Rule]] = {c: _rules(_RULE_DATA, c) for c in RULE_SETS}
SINGLE: dict[str, re.Pattern[str]] = {
    name: compile_pattern(_text(value, f"safety_rules.toml [single] {name}"), name)
    for name, value in _RULE_DATA.get("single", {}).items()
}
