"""A second learner for the safety classifier: naive-Bayes log-count ratios under a logistic
regression (NB-LR, after Wang and Manning's NBSVM, 2012). Each n-gram counts by its presence,
weighted by how much likelier it is in unsafe than in safe text (smoothed log-count ratio), and
a logistic regression is fitted over those weighted features. On small text sets this is often
stronger than tf-idf under the same linear model, and it errs differently, so its probability is
averaged with the tf-idf model's (safety_model.SafetyModel, `learners`)."""

from __future__ import annotations

import numpy as np


def binary(x):
    """The same sparse rows with every present feature at 1 (a window of two sentences: the
    union of their n-grams)."""
    b = x.copy().tocsr()
    b.data[:] = 1.0
    b.eliminate_zeros()
    return b


class NBLogistic:
    """fit / predict_proba / coef_ like scikit-learn's LogisticRegression, over the presence of
    the features weighted by their log-count ratio. `split`: where the word block ends and the
    character block begins; each block is scaled to unit length on its own, as the tf-idf
    model's are, so the many character n-grams do not drown the words."""

    ALPHA = 1.0  # add-one smoothing of the counts

    def __init__(self, c: float, split: int, alpha: float = ALPHA):
        self.c, self.split, self.alpha = c, split, alpha

    def fit(self, x, y) -> NBLogistic:
        from sklearn.linear_model import LogisticRegression

        xb = binary(x)
        y = np.asarray(y, dtype=bool)
        p = self.alpha + np.asarray(xb[y].sum(axis=0)).ravel()
        q = self.alpha + np.asarray(xb[~y].sum(axis=0)).ravel()
        self.r = np.log(p / p.sum()) - np.log(q / q.sum())
        self.lr = LogisticRegression(C=self.c, class_weight="balanced", max_iter=3000)
        self.lr.fit(self._features(xb), y)
        return self

    def _features(self, xb):
        from scipy.sparse import hstack
        from sklearn.preprocessing import normalize

        scaled = xb.multiply(self.r).tocsr()
        return hstack([normalize(scaled[:, :self.split]),
                       normalize(scaled[:, self.split:])]).tocsr()

    def predict_proba(self, x):
        return self.lr.predict_proba(self._features(binary(x)))

    @property
    def coef_(self):
        """Each feature's weight on its presence (for the cues a flag names)."""
        return self.lr.coef_ * self.r
