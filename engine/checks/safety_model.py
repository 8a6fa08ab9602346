"""The safety screen's second signal: a small text classifier trained on the repository's own
labelled passages (tests/data/safety_*.jsonl, listed in CORPUS). Learners (LEARNERS) read the
same features: "lr", a logistic regression over tf-idf word and character n-grams, and "nb", one
over the presence of the same n-grams weighted by their naive-Bayes log-count ratio (safety_nb.py,
NB-LR); with both, their probabilities are averaged. Both are used since session 8 (recall 0.798
vs 0.779 at a false-alarm rate <= 0.04 on twenty held-out sets, tools/safety_cv.py); the
self-talk line session 7 saw flagged is answered in safety.py (AIMED_BARE_PENALTY). For each
learner, one model says how likely a sentence (or two neighbours) is unsafe at all and one head
per category how likely it is unsafe of that kind against safe text only; each is trained on the
passages and then on their windows (SafetyModel._instances). The screen reads, per learner, the
mean of the first and the likeliest head (a category with its own vocabulary, medicine names or
help services, is not drowned by the others in one linear model), averaged over the learners
(_probability). A third set of models, trained on unsafe passages only, names the likeliest
category. safety.py flags a sentence when the probability passes a threshold chosen by grouped
cross-validation (tools/safety_cv.py) and no protective frame clears it; the rules stay the
first signal.

What lets it generalise beyond the words it saw (safety_features.py): besides word and character
n-grams of the text itself, it reads an abstracted copy in which the screen's lexicons are
replaced by their class ("zmedz" for any medicine name, "zdeathz" for any euphemism of dying,
"zhelpz" for any help service ...), plus tokens for the frames around them (aimed at the reader,
negated, conditional, pointing to help, quoted). So "ditch the quetiapine" shares features with
"stop your sertraline" although the corpus never paired those words.

Trained at first use (about 190 s of CPU for the corpus of 25,768 passages with both learners;
150 s for 20,596 in session 9, 120 s for 12,617 in session 8; mostly the retraining on windows
of the unsafe model and its five heads; `make model` does it ahead) and cached on disk under
~/.cache/draftroom, keyed by the corpus, this file and the modules it reads (safety_nb,
safety_features, safety_framing), the lexicons, the frames and the scikit-learn version, so a
changed corpus or method retrains.
Nothing is downloaded. Without the corpus (an install without tests/) the model is unavailable
and the screen runs on its rules alone; `available()` says which.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.checks.safety_features import abstract
from engine.checks.safety_rules import DATA_DIR
from engine.checks.sentences import _normalise, split_sentences

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SETS = ("labelled", "fresh1", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh8", "fresh9",
        "train2", "train3", "train4", "train5", "train6", "train7", "train8", "train9", "train10",
        "train11", "train12", "train13", "train14", "train15", "train16", "train17",
        "train18", "train19", "train20", "train21", "train22", "train23", "train24", "fresh10",
        "fresh11", "train25", "train26", "train27", "train28", "train29", "train30", "train31",
        "train32", "train33", "train34", "train35", "train36", "train37", "train38", "train39",
        "train40", "train41", "train42", "train43", "train44", "train45", "fresh13", "fresh14",
        "fresh15", "fresh16", "drafts")
CORPUS = tuple(DATA / f"safety_{name}.jsonl" for name in SETS)
# Blind sets kept out of the corpus on purpose: scored once, unseen (tests/test_safety_fresh.py).
HELD_OUT = ("fresh7",)
CACHE_DIR = Path.home() / ".cache" / "draftroom"
MIN_WORDS = 5  # shorter sentences are read only with a neighbour
HEADS = True  # one-vs-rest heads per category join the unsafe model (tools/safety_cv.py)
LEARNERS = ("lr", "nb")  # averaged (_probability); tools/safety_cv.py --learners lr, nb, lr+nb
TOPIC_FRAMES = False  # framed_topics as features (tools/safety_cv.py --topics; not kept)
MIL_ROUNDS = 1  # retrainings on windows (SafetyModel._instances); tools/safety_cv.py: 0, 1, 2
CATEGORIES = ("self_harm", "medication", "diagnosis", "dangerous_practice", "discourages_help")

@dataclass(frozen=True)
class Verdict:
    category: str
    probability: float
    cues: tuple[str, ...]
    """The n-grams of the sentence that pushed the score up most (the "why")."""


class SafetyModel:
    """Probability that a sentence (or two neighbouring ones) is unsafe, the likeliest
    category, and the cues behind it. Answers are kept per text: a loop re-screens mostly the
    same sentences."""

    CACHE_SIZE = 16384
    C = 16.0  # weak regularisation held out best (tools/safety_cv.py: C 4, 16, 32, 64)

    def __init__(self, rows: list[dict], c: float = C, rounds: int = MIL_ROUNDS,
                 heads: bool = HEADS, learners: tuple[str, ...] = LEARNERS,
                 topics: bool = TOPIC_FRAMES):
        from sklearn.feature_extraction.text import TfidfVectorizer

        # words (and the class and frame tokens) over the abstracted copy, characters over
        # the text itself (misspellings, slang, names the lexicons lack); unnormalised, so two
        # neighbouring sentences are judged together by adding their vectors
        self.word = TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, min_df=1,
                                    token_pattern=r"(?u)\b\w[\w']*\b", norm=None)
        self.char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True,
                                    min_df=2, norm=None)
        self.topics = topics
        texts = [r["text"] for r in rows]
        x = self._combine(self.word.fit_transform([abstract(t, topics) for t in texts]),
                          self.char.fit_transform([_normalise(t) for t in texts]))
        self.names = [*self.word.get_feature_names_out(), *self.char.get_feature_names_out()]
        y = [bool(r["categories"]) for r in rows]
        windows = self._windows(texts) if rounds else None
        split = len(self.word.vocabulary_)
        # per learner, the unsafe model and one head per category (_probability averages them)
        # "nbu": the naive-Bayes learner's unsafe model alone, without heads (half the time)
        self.members = [self._member(rows, x, y, windows, rounds, _learner(kind, c, split),
                                     heads and kind != "nbu") for kind in learners]
        self.unsafe, self.heads = self.members[0]
        unsafe_rows = [i for i, r in enumerate(rows) if r["categories"]]
        xu = x[unsafe_rows]
        self.models = {}
        for cat in CATEGORIES:
            yc = [cat in rows[i]["categories"] for i in unsafe_rows]
            if any(yc) and not all(yc):
                self.models[cat] = _fit(xu, yc, c)
        self._p: dict[str, float] = {}
        self._v: dict[str, list[Verdict]] = {}

    def _member(self, rows: list[dict], x, y: list[bool], windows, rounds: int, fit,
                heads: bool):
        """The unsafe model and, with `heads`, one head per category against safe text only
        (the passages of other categories take no part), all fitted by `fit`."""
        unsafe = self._instances(x, y, windows, rounds, fit)
        by_category = {}
        safe = [not r["categories"] for r in rows]
        for cat in CATEGORIES if heads else ():
            yc = [cat in r["categories"] for r in rows]
            if not any(yc):
                continue
            keep = [a or b for a, b in zip(safe, yc, strict=True)]
            by_category[cat] = self._instances(x, yc, windows, rounds, fit, keep)
        return unsafe, by_category

    def _instances(self, x, y: list[bool], windows, rounds: int, fit,
                   keep: list[bool] | None = None):
        """A model of `y` trained on the passages and then on the windows the screen reads (a
        sentence, two neighbours): a passage model alone learns that the good advice around an
        unsafe line is unsafe too. Every window of a negative passage is a negative; of a
        positive passage only the window the model scores highest is a positive (multiple-
        instance learning: the label says some window is unsafe, not which). `keep`: the
        passages that take part."""
        import numpy as np
        from scipy.sparse import vstack

        keep_at = np.flatnonzero(keep) if keep is not None else np.arange(len(y))
        labels = np.asarray(y)
        x, y_kept = x[keep_at], labels[keep_at]
        model = fit(x, list(y_kept))
        if not rounds:
            return model
        xw, owner = windows
        used = np.zeros(len(labels), dtype=bool)
        used[keep_at] = True
        inside = np.flatnonzero(used[owner])
        xw, owner = xw[inside], owner[inside]
        neg = np.flatnonzero(~labels[owner])
        for _ in range(rounds):
            p = model.predict_proba(xw)[:, 1]
            # the highest-scoring window of each positive passage
            order = np.lexsort((-p, owner))
            first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
            pos = first[labels[owner[first]]]
            model = fit(vstack([x, xw[pos], xw[neg]]).tocsr(),
                        [*y_kept, *([True] * len(pos)), *([False] * len(neg))])
        return model

    def _windows(self, texts: list[str]):
        """Every window the screen would score in each text (safety.model_scores: sentences of
        at least MIN_WORDS words, neighbouring pairs with at least one such), as rows of one
        matrix, with the index of the text each came from."""
        import numpy as np

        sentences: list[str] = []
        singles: list[int] = []
        pairs: list[tuple[int, int]] = []
        owner_s: list[int] = []
        owner_p: list[int] = []
        for k, text in enumerate(texts):
            base = len(sentences)
            units = [text[a:b] for a, b in split_sentences(text)]
            ok = [len(_normalise(u).split()) >= MIN_WORDS for u in units]
            sentences += units
            singles += [base + i for i in range(len(units)) if ok[i]]
            owner_s += [k] * sum(ok)
            for i in range(len(units) - 1):
                if ok[i] or ok[i + 1]:
                    pairs.append((base + i, base + i + 1))
                    owner_p.append(k)
        words, chars = self._raw(sentences)
        xw = self._window_rows(words, chars, singles, [i for i, _ in pairs], [j for _, j in pairs])
        return xw, np.asarray(owner_s + owner_p)

    def _window_rows(self, words, chars, singles: list[int], left: list[int], right: list[int]):
        """The feature rows of sentences (`singles`) and of pairs read together (`left[k]` and
        `right[k]`'s vectors added), from the sentences' word and character vectors."""
        from scipy.sparse import vstack

        return self._combine(vstack([words[singles], words[left] + words[right]]),
                             vstack([chars[singles], chars[left] + chars[right]]))

    def _raw(self, texts: list[str]):
        return (self.word.transform([abstract(t, self.topics) for t in texts]),
                self.char.transform([_normalise(t) for t in texts]))

    @staticmethod
    def _combine(words, chars):
        from scipy.sparse import hstack
        from sklearn.preprocessing import normalize

        return hstack([normalize(words), normalize(chars)]).tocsr()

    def _x(self, texts: list[str]):
        return self._combine(*self._raw(texts))

    def unsafe_probability(self, texts: list[str]) -> list[float]:
        if not texts:
            return []
        return [float(p) for p in self._probability(self._x(texts))]

    def _probability(self, x):
        """The mean of the unsafe model's probability and the likeliest category head's (the
        mean held out better than either alone or their maximum: tools/safety_cv.py)."""
        import numpy as np

        out = []
        for unsafe, heads in self.members:
            p = unsafe.predict_proba(x)[:, 1]
            if heads:
                best = np.column_stack([h.predict_proba(x)[:, 1] for h in heads.values()])
                p = (p + best.max(axis=1)) / 2
            out.append(p)
        return np.mean(out, axis=0)

    def window_probability(self, sentences: list[str], groups: list[tuple[int, ...]],
                           ) -> tuple[list[float], list[float]]:
        """Unsafe probability of each sentence and of each group of them read together, such
        as a pair (i, i + 1) (their vectors added: one transform per new sentence, not per
        window)."""
        keys = [*sentences, *("\x00".join(sentences[i] for i in g) for g in groups)]
        first = {k: n for n, k in reversed(list(enumerate(keys)))}  # a draft repeats lines
        # this call's answers, read before the cache may be emptied below
        known = {k: self._p[k] for k in first if k in self._p}
        missing = sorted(n for k, n in first.items() if k not in known)
        if missing:
            n = len(sentences)
            need = sorted({m for k in missing for m in ((k,) if k < n else groups[k - n])})
            row = {m: r for r, m in enumerate(need)}
            words, chars = self._raw([sentences[m] for m in need])
            members = [(row[k],) if k < n else tuple(row[m] for m in groups[k - n])
                       for k in missing]
            probs = self._probability(self._group_rows(words, chars, members))
            new = dict(zip((keys[k] for k in missing), map(float, probs), strict=True))
            if len(self._p) + len(new) > self.CACHE_SIZE:
                self._p.clear()
            self._p.update(new)
            known.update(new)
        p = [known[k] for k in keys]
        return p[:len(sentences)], p[len(sentences):]

    def _group_rows(self, words, chars, members: list[tuple[int, ...]]):
        """The feature rows of groups of sentences read together (their vectors added)."""
        import numpy as np
        from scipy.sparse import csr_matrix

        cols = [m for g in members for m in g]
        at = np.repeat(np.arange(len(members)), [len(g) for g in members])
        pick = csr_matrix((np.ones(len(cols)), (at, cols)), shape=(len(members), words.shape[0]))
        return self._combine(pick @ words, pick @ chars)

    def predict(self, texts: list[str], threshold: float = 0.0) -> list[list[Verdict]]:
        """For each text whose unsafe probability reaches `threshold`, its categories most
        likely first, each carrying that probability (the cues are worked out only for them,
        which keeps the screen fast)."""
        distinct = dict.fromkeys(texts)
        known = {t: self._v[t] for t in distinct if t in self._v}
        todo = [t for t in distinct if t not in known]
        if todo:
            new = dict(zip(todo, self._verdicts(todo), strict=True))
            if len(self._v) + len(new) > self.CACHE_SIZE:
                self._v.clear()  # bounded; this call's answers are kept in `known`
            self._v.update(new)
            known.update(new)
        return [[v for v in known[t] if v.probability >= threshold] for t in texts]

    def _verdicts(self, texts: list[str]) -> list[list[Verdict]]:
        import numpy as np

        x = self._x(texts)
        p_unsafe = self._probability(x)
        cats = list(self.models)
        p_cat = np.column_stack([self.models[c].predict_proba(x)[:, 1] for c in cats])
        out: list[list[Verdict]] = [[] for _ in texts]
        for i in range(len(texts)):
            for k in np.argsort(-p_cat[i]):
                if p_cat[i, k] < 0.5 and out[i]:
                    break
                out[i].append(Verdict(cats[k], float(p_unsafe[i]), self._cues(x[i], cats[k])))
        return out

    def _cues(self, row, category: str) -> tuple[str, ...]:
        coef = self.unsafe.coef_[0] + self.models[category].coef_[0]
        idx, vals = row.indices, row.data * coef[row.indices]
        top = sorted(zip(idx, vals, strict=True), key=lambda t: -t[1])[:12]
        cues = dict.fromkeys(self._cue(j) for j, v in top if v > 0)
        return tuple(cues)[:3]

    def _cue(self, j: int) -> str:
        return str(self.names[j]).strip()


def _fit(x, y: list[bool], c: float):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=3000).fit(x, y)


def _learner(kind: str, c: float, split: int):
    """fit(x, y) of a learner: "lr", logistic regression over the tf-idf features; "nb", the
    same over naive-Bayes weighted presence (safety_nb.NBLogistic)."""
    if kind == "lr":
        return lambda x, y: _fit(x, y, c)
    if kind in ("nb", "nbu"):
        from engine.checks.safety_nb import NBLogistic

        return lambda x, y: NBLogistic(c, split).fit(x, y)
    raise ValueError(f"unknown learner {kind!r} (lr, nb, nbu)")


def load_rows(paths: tuple[Path, ...] = CORPUS) -> list[dict] | None:
    rows: list[dict] = []
    for path in paths:
        if not path.exists():
            return None
        with path.open(encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def _key(rows: list[dict]) -> str:
    import sklearn

    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    for module in ("safety_nb.py", "safety_features.py", "safety_framing.py"):
        h.update((Path(__file__).parent / module).read_bytes())
    h.update((DATA_DIR / "safety_lexicons.toml").read_bytes())
    h.update((DATA_DIR / "safety_frames.toml").read_bytes())
    h.update(sklearn.__version__.encode())
    h.update(json.dumps(rows, sort_keys=True).encode())
    return h.hexdigest()[:16]


def model_path(rows: list[dict]) -> Path:
    return CACHE_DIR / f"safety_model-{_key(rows)}.pickle"


@cache
def get_model() -> SafetyModel | None:
    """The trained model (from the disk cache when the corpus is unchanged), or None."""
    rows = load_rows()
    if rows is None:
        log.warning("safety model: corpus %s missing; the screen runs on rules only", CORPUS)
        return None
    try:
        import sklearn  # noqa: F401 - a dependency; an old virtualenv may lack it
    except ImportError:
        log.warning("safety model: scikit-learn is not installed (pip install -e .); the "
                    "screen runs on rules only")
        return None
    path = model_path(rows)
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


if __name__ == "__main__":  # `make model`: train (or find) the model for the corpus in the repo
    import time

    # through the package, so the pickled class is engine.checks.safety_model.SafetyModel and
    # not __main__.SafetyModel (which the app could not load)
    from engine.checks import safety_model as package

    start = time.perf_counter()
    built = package.get_model()
    rows = package.load_rows()
    if built is None or rows is None:
        raise SystemExit("safety model: not built (see the warning above)")
    print(f"safety model: {package.model_path(rows)} ({len(rows)} passages, "
          f"{time.perf_counter() - start:.1f} s)")
