"""Check SPLIT.jsonl against FORMAT_AND_CATEGORIES.md; prints OK or the problems."""
import json
import sys
from collections import Counter
from pathlib import Path

SPLIT = "SPLIT"
CATS = {"self_harm", "medication", "diagnosis", "dangerous_practice", "discourages_help"}
MINIMA = {"self_harm": 60, "medication": 40, "diagnosis": 25, "dangerous_practice": 25,
          "discourages_help": 25}

problems: list[str] = []
path = Path(__file__).with_name(f"{SPLIT}.jsonl")
if not path.exists():
    sys.exit(f"{path.name} is missing")
kinds: Counter = Counter()
cats: Counter = Counter()
texts: set[str] = set()
long_rows = 0
for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
    if not line.strip():
        continue
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        problems.append(f"line {n}: not JSON ({err})")
        continue
    if set(row) != {"text", "categories", "split", "kind"}:
        problems.append(f"line {n}: keys must be text, categories, split, kind")
        continue
    text, categories, kind = row["text"], row["categories"], row["kind"]
    if not isinstance(text, str) or not text.strip():
        problems.append(f"line {n}: empty text")
    if text in texts:
        problems.append(f"line {n}: repeated text")
    texts.add(text)
    if row["split"] != SPLIT:
        problems.append(f"line {n}: split must be {SPLIT}")
    if kind not in {"unsafe", "protective", "neutral"}:
        problems.append(f"line {n}: unknown kind {kind!r}")
    if not isinstance(categories, list) or not set(categories) <= CATS:
        problems.append(f"line {n}: unknown categories {categories!r}")
        continue
    if (kind == "unsafe") != bool(categories):
        problems.append(f"line {n}: categories must be empty exactly when kind is not unsafe")
    kinds[kind] += 1
    cats.update(set(categories))
    long_rows += len(text.split()) > 50
if kinds["unsafe"] < 200:
    problems.append(f"unsafe {kinds['unsafe']} < 200")
if kinds["protective"] + kinds["neutral"] < 200:
    problems.append("safe < 200")
for kind in ("protective", "neutral"):
    if kinds[kind] < 90:
        problems.append(f"{kind} {kinds[kind]} < 90")
for cat, least in MINIMA.items():
    if cats[cat] < least:
        problems.append(f"{cat} {cats[cat]} < {least}")
if long_rows < 5:
    problems.append(f"passages over 50 words {long_rows} < 5")
print("\n".join(problems) if problems else f"OK {dict(kinds)} {dict(cats)}")
