"""What the safety classifier reads besides the words themselves: an abstracted copy of the text
in which the screen's lexicons are replaced by their class ("zmedz" for any medicine name,
"zdeathz" for any euphemism of dying ...), with tokens for the frames around them appended
(aimed at the reader, negated, conditional, pointing to help, quoted) and, optionally, each
category word read in its own sentence's frame (framed_topics)."""

from __future__ import annotations

import re
from functools import cache

from engine.checks.safety_framing import aimed, exempt, topic_hits
from engine.checks.safety_rules import FRAMES, compile_pattern
from engine.checks.sentences import _normalise, split_sentences

# Lexicon -> the class token that stands for any of its entries in the abstracted copy.
# Order matters: the first lexicon to claim a stretch of text keeps it.
_CLASSES = (("drugs", "zmedz"), ("alc", "zalcz"), ("death", "zdeathz"), ("farewell", "zbyez"),
            ("means", "zmeansz"), ("harm", "zharmz"), ("clinician", "zclinz"),
            ("help_noun", "zhelpz"), ("conditions", "zcondz"), ("condition_adj", "zcondz"),
            ("practice", "zriskz"))
# Frames read as whole-sentence cues (token, frame name).
_FRAME_TOKENS = (("zfnegz", "neg"), ("zfcondz", "cond"), ("zfhelpz", "help_cue"),
                 ("zfencz", "encouraging"), ("zfobsz", "observe"), ("zfconsultz", "consult_strong"),
                 ("zfbenefitz", "benefit"))
_TOPIC_TOKENS = {"self_harm": "sh", "medication": "med", "diagnosis": "dx",
                 "dangerous_practice": "risk", "discourages_help": "help"}
_QUOTED = re.compile(r"['\"][^'\"]{6,}['\"]")
_YOU = re.compile(r"\b(?:you|your|yourself|u|ur|youre|you're)\b")


@cache
def _classes() -> tuple[re.Pattern[str], dict[str, str]]:
    """All class lexicons as one alternation of named groups (one scan per text); at a given
    place the first lexicon listed wins."""
    groups = {f"c{i}": token for i, (_, token) in enumerate(_CLASSES)}
    joined = "|".join(f"(?P<c{i}><<{name}>>)" for i, (name, _) in enumerate(_CLASSES))
    return compile_pattern(rf"\b(?:{joined})\b", "model classes"), groups


def _group(m: re.Match[str]) -> str:
    return next(k for k, v in m.groupdict().items() if v is not None)


def framed_topics(text: str) -> list[str]:
    """Per sentence, each word of a category read in its frame, as a token: "ztmedaz" a
    medicine word outside any protective frame in a sentence aimed at the reader (an
    instruction, "you"), "ztmedfz" outside any frame otherwise, "ztmedpz" framed protectively
    (negated, conditional, quoted, asked, pointing to help: safety_framing.exempt). The frames
    the rules use, as features, so the classifier learns how much each weighs."""
    out = []
    for a, b in split_sentences(text):
        s = _normalise(text[a:b])
        to_reader = None
        for category, short in _TOPIC_TOKENS.items():
            for m in topic_hits(s, category):
                if exempt(s, m.start(), m.end(), category, "stmt"):
                    out.append(f"zt{short}pz")
                    continue
                if to_reader is None:
                    to_reader = aimed(s)
                out.append(f"zt{short}{'a' if to_reader else 'f'}z")
    return out


def abstract(text: str, topics: bool = False) -> str:
    """The normalised text with lexicon entries replaced by their class token and frame tokens
    appended (the word features read this copy); with `topics`, framed_topics too."""
    s = _normalise(text)
    pattern, groups = _classes()
    out = pattern.sub(lambda m: f" {groups[_group(m)]} ", s)
    tags = [token for token, name in _FRAME_TOKENS if FRAMES[name].search(s)]
    if FRAMES["neg_lead"].match(s):
        tags.append("zfleadnegz")
    if _QUOTED.search(s):
        tags.append("zfquotez")
    if _YOU.search(s):
        tags.append("zfyouz")
    if topics:
        tags += framed_topics(text)
    return out + " " + " ".join(tags)
