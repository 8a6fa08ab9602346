"""The safety screen's second signal: a small text classifier trained on the repository's own
labelled passages (tests/data/safety_*.jsonl, listed in CORPUS), one logistic regression per
category over word and character n-grams (scikit-learn). It catches phrasings no rule was
written for; the rules stay the first signal and the frames still apply (safety.py decides).

Trained at first use (well under a second) and cached on disk under ~/.cache/draftroom, keyed
by the corpus, this file and the scikit-learn version, so a changed corpus retrains. Nothing
is downloaded. Without the corpus (an install without tests/) the model is unavailable and
the screen runs on its rules alone; `available()` says which.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
from dataclasses import dataclass
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = (ROOT / "tests" / "data" / "safety_labelled.jsonl",
          ROOT / "tests" / "data" / "safety_fresh1.jsonl")
CACHE_DIR = Path.home() / ".cache" / "draftroom"
CATEGORIES = ("self_harm", "medication", "diagnosis", "dangerous_practice", "discourages_help")


@dataclass(frozen=True)
class Verdict:
    category: str
    probability: float
    cues: tuple[str, ...]
    """The n-grams of the sentence that pushed the score up most (the "why")."""


class SafetyModel:
    """Per-category probabilities for sentences, with the cues behind each."""

    def __init__(self, rows: list[dict]):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion

        texts = [r["text"].lower() for r in rows]
        self.features = FeatureUnion([
            ("word", TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, min_df=1,
                                     token_pattern=r"(?u)\b\w[\w']*\b")),
            ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True,
                                     min_df=2)),
        ])
        x = self.features.fit_transform(texts)
        self.names = self.features.get_feature_names_out()
        self.models = {}
        self.unsafe = LogisticRegression(C=8.0, class_weight="balanced", max_iter=2000).fit(
            x, [bool(r["categories"]) for r in rows])
        for c in CATEGORIES:
            y = [c in r["categories"] for r in rows]
            if any(y) and not all(y):
                self.models[c] = LogisticRegression(C=8.0, class_weight="balanced",
                                                    max_iter=2000).fit(x, y)

    def predict(self, sentences: list[str], threshold: float = 0.0) -> list[list[Verdict]]:
        """For each sentence, the categories at or above `threshold`, most probable first
        (the cues are worked out only for those, which keeps the screen fast)."""
        if not sentences:
            return []
        x = self.features.transform([s.lower() for s in sentences]).tocsr()
        out: list[list[Verdict]] = [[] for _ in sentences]
        for c, model in self.models.items():
            probs = model.predict_proba(x)[:, 1]
            coef = model.coef_[0]
            for i in (probs >= threshold).nonzero()[0]:
                lo, hi = x.indptr[i], x.indptr[i + 1]
                idx, vals = x.indices[lo:hi], x.data[lo:hi] * coef[x.indices[lo:hi]]
                top = sorted(zip(idx, vals, strict=True), key=lambda t: -t[1])[:12]
                cues = dict.fromkeys(self._cue(j) for j, v in top if v > 0)
                out[i].append(Verdict(c, float(probs[i]), tuple(cues)[:3]))
        for verdicts in out:
            verdicts.sort(key=lambda v: -v.probability)
        return out

    def unsafe_probability(self, sentences: list[str]) -> list[float]:
        x = self.features.transform([s.lower() for s in sentences])
        return [float(p) for p in self.unsafe.predict_proba(x)[:, 1]]

    def _cue(self, j: int) -> str:
        name = str(self.names[j]).split("__", 1)[-1]
        return name.strip()


def _load_rows() -> list[dict] | None:
    rows: list[dict] = []
    for path in CORPUS:
        if not path.exists():
            return None
        with path.open(encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def _key(rows: list[dict]) -> str:
    import sklearn

    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    h.update(sklearn.__version__.encode())
    h.update(json.dumps(rows, sort_keys=True).encode())
    return h.hexdigest()[:16]


@cache
def get_model() -> SafetyModel | None:
    """The trained model (from the disk cache when the corpus is unchanged), or None."""
    rows = _load_rows()
    if rows is None:
        log.warning("safety model: corpus %s missing; the screen runs on rules only", CORPUS)
        return None
    try:
        import sklearn  # noqa: F401 - a dependency; an old virtualenv may lack it
    except ImportError:
        log.warning("safety model: scikit-learn is not installed (pip install -e .); the "
                    "screen runs on rules only")
        return None
    path = CACHE_DIR / f"safety_model-{_key(rows)}.pickle"
    # The cache is this user's own file, written below from the repository's corpus.
    if path.exists():
        try:
            with path.open("rb") as f:
                return pickle.load(f)  # noqa: S301
        except Exception:  # noqa: BLE001 - a damaged cache file is rebuilt
            log.warning("safety model: cache %s unreadable; retraining", path)
    model = SafetyModel(rows)
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(model, f)
        tmp.replace(path)
    except OSError as e:  # a read-only home: keep the model in memory only
        log.warning("safety model: cannot cache at %s (%s)", path, e)
    return model


def available() -> bool:
    return get_model() is not None
