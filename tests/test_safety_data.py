"""The safety screen's rules are data (engine/checks/data/*.toml): they load, and a broken
entry fails loudly with its file and entry named instead of silently screening less."""

from __future__ import annotations

import pytest

from engine.checks import safety_rules as sr


def test_every_rule_set_and_frame_loads_from_the_data_files():
    assert set(sr.RULES) == set(sr.RULE_SETS)
    assert all(sr.RULES[name] for name in sr.RULE_SETS)
    assert {"neg", "cond", "observe", "help_cue", "consult_talk"} <= set(sr.FRAMES)
    assert {"mix_alcohol", "mix_medication", "cold", "cold_extreme"} <= set(sr.SINGLE)


def test_a_lexicon_reference_expands_to_its_entries():
    drugs = sr.compile_pattern(r"\b<<drugs>>\b", "test")
    assert drugs.search("stop your sertraline") and drugs.search("two xanax")
    assert not drugs.search("a glass of water")


def test_an_unknown_reference_names_the_entry():
    with pytest.raises(sr.RuleDataError, match=r"my rule: unknown name <<nope>>"):
        sr.compile_pattern(r"\b<<nope>>\b", "my rule")


def test_a_bad_regex_or_kind_names_the_entry():
    with pytest.raises(sr.RuleDataError, match=r"\[\[self_harm\]\] #1"):
        sr._rules({"self_harm": [{"pattern": "(unclosed"}]}, "self_harm")
    with pytest.raises(sr.RuleDataError, match="kind 'loud'"):
        sr._rules({"medication": [{"pattern": "x", "kind": "loud"}]}, "medication")
    with pytest.raises(sr.RuleDataError, match="string or a list of strings"):
        sr._rules({"medication": [{"pattern": 3}]}, "medication")


def test_a_malformed_data_file_names_the_file(tmp_path, monkeypatch):
    (tmp_path / "safety_rules.toml").write_text("[[self_harm]\npattern = 'x'\n")
    monkeypatch.setattr(sr, "DATA_DIR", tmp_path)
    with pytest.raises(sr.RuleDataError, match="safety_rules.toml"):
        sr._read("safety_rules.toml")


def test_without_scikit_learn_the_screen_runs_on_its_rules(monkeypatch, caplog):
    import builtins

    from engine.checks import safety, safety_model

    real_import = builtins.__import__

    def no_sklearn(name, *args, **kwargs):
        if name == "sklearn" or name.startswith("sklearn."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    safety_model.get_model.cache_clear()
    try:
        assert safety_model.get_model() is None
        assert "scikit-learn is not installed" in caplog.text
        flags = safety.screen_protocol("Halve your Lexapro this week.").flags
        assert [f.category for f in flags] == ["medication"]
    finally:
        monkeypatch.undo()
        safety_model.get_model.cache_clear()
