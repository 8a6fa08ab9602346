"""The safety classifier's training on windows (multiple-instance learning) and the corpus it
trains on."""

from __future__ import annotations

import json

from engine.checks.safety_model import CORPUS, DATA, HELD_OUT, SafetyModel

_GOOD = "Remember to drink a glass of water and breathe slowly before you start."
_SAFE = ["Write the worry down and rate it from 0 to 100 before the walk.",
         "Notice the urge, name it, and let it pass like a wave on the shore.",
         "Plan one pleasant activity for the weekend and tick it off when done.",
         "Ask a friend to join you for the first short walk around the block."]
_UNSAFE = ["Throw your pills away tonight and never tell your doctor about it.",
           "Stop eating for three days so the anxiety has nothing to feed on.",
           "Hide the marks under long sleeves so nobody at work can ask.",
           "Skip your therapy session and handle the panic all on your own."]


def _rows() -> list[dict]:
    # every unsafe passage carries the same good advice next to its unsafe line, and it comes
    # more often than the safe passages do, so a model of whole passages learns it as unsafe
    rows = [{"text": f"{_GOOD} {u}", "categories": ["self_harm"]} for u in _UNSAFE]
    rows += [{"text": f"{_GOOD} {s}", "categories": []} for s in _SAFE[:2]]
    rows += [{"text": f"{a} {b}", "categories": []} for a, b in zip(_SAFE, _SAFE[1:], strict=False)]
    return rows


def test_training_on_windows_stops_the_advice_around_an_unsafe_line_looking_unsafe():
    passages = SafetyModel(_rows(), rounds=0)
    windows = SafetyModel(_rows(), rounds=1)
    assert passages.unsafe_probability([_GOOD])[0] > 0.5
    assert windows.unsafe_probability([_GOOD])[0] < passages.unsafe_probability([_GOOD])[0] - 0.2
    # and the unsafe lines themselves stay above the advice
    p_unsafe = windows.unsafe_probability(_UNSAFE)
    assert min(p_unsafe) > windows.unsafe_probability([_GOOD])[0]


def test_every_corpus_set_is_well_formed_and_no_passage_has_two_labels():
    # (a passage may recur across sets - a standard self-compassion phrase does - with one label)
    seen: dict[str, bool] = {}
    for path in CORPUS:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        assert rows, path
        for r in rows:
            assert isinstance(r["text"], str) and r["text"].strip()
            assert set(r["categories"]) <= {"self_harm", "medication", "diagnosis",
                                            "dangerous_practice", "discourages_help"}
            if "kind" in r:
                assert (r["kind"] == "unsafe") == bool(r["categories"]), r
            key = " ".join(r["text"].lower().split())
            assert seen.setdefault(key, bool(r["categories"])) == bool(r["categories"]), (
                path.name, r["text"])


def test_every_set_written_blind_is_in_the_corpus_and_an_honest_fold():
    """The sets written by helpers that never saw the rules train the classifier and are each a
    held-out fold of tools/safety_cv.py (but for a blind set kept out, HELD_OUT); only the sets
    the rules were written against (labelled, fresh1) and the drafter's own sentences are not
    scored as honest."""
    from tools.safety_cv import HONEST

    written = {p.stem.removeprefix("safety_") for p in DATA.glob("safety_*.jsonl")}
    assert {p.stem.removeprefix("safety_") for p in CORPUS} == written - set(HELD_OUT)
    assert set(HONEST) == written - set(HELD_OUT) - {"labelled", "fresh1", "drafts"}
    assert {"fresh5", "fresh6", "train6", "train7", "train8", "train9", "train10", "train11",
            "train12", "train13", "train14", "train15", "train16", "train17", "train18",
            "train19", "train20", "fresh8", "fresh9"} <= set(HONEST)


def test_the_naive_bayes_learner_weighs_words_by_how_much_likelier_they_are_in_unsafe_text():
    from engine.checks.safety_nb import NBLogistic

    model = SafetyModel(_rows(), rounds=0, heads=False, learners=("nb",))
    nb = model.unsafe
    assert isinstance(nb, NBLogistic)
    # every n-gram gets a log-count ratio; one only the unsafe passages hold weighs for unsafe
    word = model.word.vocabulary_
    assert nb.r.shape == (len(model.names),)
    assert nb.r[word["throw"]] > 0 > nb.r[word["walk"]]
    p = model.unsafe_probability(["Throw your pills away tonight.", "Plan one pleasant walk."])
    assert p[0] > 0.5 > p[1]


def test_two_learners_are_averaged():
    both = SafetyModel(_rows(), rounds=0, learners=("lr", "nb"))
    lr = SafetyModel(_rows(), rounds=0, learners=("lr",))
    nb = SafetyModel(_rows(), rounds=0, learners=("nb",))
    texts = [_GOOD, *_UNSAFE[:2], *_SAFE[:2]]
    for p, a, b in zip(both.unsafe_probability(texts), lr.unsafe_probability(texts),
                       nb.unsafe_probability(texts), strict=True):
        assert abs(p - (a + b) / 2) < 1e-9


def test_each_category_word_is_read_in_its_own_sentence_frame():
    from engine.checks.safety_features import abstract, framed_topics

    assert framed_topics("Stop your sertraline tonight.") == ["ztmedaz"]
    assert framed_topics("Never stop your sertraline without your prescriber.") == ["ztmedpz"]
    assert framed_topics("Breathe out slowly. Stop your sertraline tonight.") == ["ztmedaz"]
    assert "ztmedaz" in abstract("Stop your sertraline tonight.", topics=True)
    assert "ztmed" not in abstract("Stop your sertraline tonight.")


def test_a_full_answer_cache_is_emptied_without_losing_the_answers_a_call_still_needs():
    """A long-lived worker screens more sentences than the caches hold; emptying them in the
    middle of a call once lost the answers it had found cached (KeyError on the next draft)."""
    rows = _rows()
    rows[0]["categories"] = ["medication"]  # two categories, so the verdicts have a head each
    model = SafetyModel(rows)
    model.CACHE_SIZE = 2  # the first call fills it past the bound
    sentences = _SAFE + _UNSAFE[:1]
    before, _ = model.window_probability(sentences[:3], [])
    single, pair = model.window_probability(sentences, [(0, 1), (3, 4)])  # 3 cached, 4 new
    assert single[:3] == before and len(pair) == 2
    assert len(model._p) <= model.CACHE_SIZE + 4  # noqa: SLF001 - bounded, then refilled
    first = model.predict(sentences[:3])
    assert model.predict(sentences)[:3] == first  # the verdicts' cache, the same way


def test_scores_read_at_a_low_floor_flag_exactly_what_the_screen_flags_at_its_threshold():
    # tools/safety_cv.py reads every verdict's score once, at a low floor, and then compares
    # thresholds; that is only the screen's answer if a window keeps the same verdict whatever
    # the floor (a framed medication verdict must not hide an unframed one of another kind)
    from engine.checks import safety
    from engine.checks.safety_model import get_model
    from engine.checks.sentences import split_sentences

    model = get_model()
    assert model is not None
    texts = ["If you miss a dose of your lithium, just take double the next day.",
             "When the urge to cut comes, go ahead, but keep it where nobody will see.",
             "Don't stop your sertraline suddenly; your prescriber can plan a taper.",
             "If you forget your Seroquel one night, take two the next night to catch up.",
             "Skip breakfast. Stop your sertraline. Tell nobody at the clinic.",
             "Write the worry down and rate it from 0 to 100 before the walk."]
    for text in texts:
        sentences = [text[a:b] for a, b in split_sentences(text)]
        low = safety.model_scores(sentences, model, 0.2)
        for t in (0.4, 0.5, 0.6, 0.7, 0.8):
            at_t = safety.model_scores(sentences, model, t)
            assert [max((s for _, s, _ in hs), default=0.0) >= t for hs in low] == \
                [bool(hs) for hs in at_t], (text, t)
