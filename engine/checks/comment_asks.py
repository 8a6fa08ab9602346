"""Which sentences of a person's comment ask for something ("Raise Lior's fee to $650", "could
you add ...?") and which are context ("Good start.", "His English isn't great."): the offline
drafters apply and report the asks only, and the feedback check judges each ask of a campaign
comment on its own."""

from __future__ import annotations

import re

_LEAD = r"^\W*(?:(?:ok|okay|also|and|but|then|maybe|just|please|pls|kindly|now)[,\s]+)*"
_REQUEST_START = re.compile(
    _LEAD + r"(?:(?:can|could|would|will)\s+(?:you|we)\b|(?:add|include|mention|name|say|put|"
    r"use|make|replace|swap|change|remove|drop|delete|cut|shorten|simplify|rewrite|redo|write|"
    r"call|rename|translate|turn|keep|give|offer|tell|explain|note|insert|list|start|end|move|split|avoid|"
    r"focus|tailor|adapt|set|limit|let|bring|sign|lower|raise|reduce|increase|expand|lengthen|"
    r"soften|show|ask|describe|skip|spell|quote|stress|emphasi[sz]e|highlight|clarify|specify|"
    r"reword|rephrase|fix|correct|update|break|merge|combine|reorder|lose|get rid)\b)", re.I)
_REQUEST_ANYWHERE = re.compile(
    r"\b(?:please|pls|should|needs? to|must|would like|i'd like|want (?:you|it|this)|"
    r"put (?:that|this|it) in|name (?:it|him|her|them))\b|\?\s*$|"
    # "She's a fainter, so mention applied tension": an ask after its reason
    r"(?:,\s*|\s)(?:so|and|then|-|;)\s+(?:please\s+)?(?:add|include|mention|name|say|put|use|"
    r"replace|change|remove|drop|quote|write|insert|start|end|give|tell|make sure)\b|"
    # "Also he grows tomatoes, mention those."
    r",\s*(?:please\s+|pls\s+)?(?:mention|include|add|put|use)\s+(?:those|these|that|this|it|"
    r"them)\b", re.I)


# "Put that in the messages", "add this to each DM": an ask whose content is the sentence
# before it ("The bean is a Yirgacheffe. Put that in the messages.").
_POINTS_BACK = re.compile(_LEAD + r"(?:put|add|include|mention|use|say|insert|stick)\s+"
                          r"(?:that|this|it|those|these|them)(?:\s+too)?(?:\s+(?:in|to|into|on)\b.*)?[.!]?\s*$",
                          re.I)


def points_back(sentence: str) -> bool:
    """Whether an ask's content is the sentence before it."""
    return bool(_POINTS_BACK.match(sentence))


def is_request(sentence: str) -> bool:
    """Whether a sentence of a comment asks for something (else it is context)."""
    return bool(_REQUEST_START.search(sentence) or _REQUEST_ANYWHERE.search(sentence))


__all__ = ["is_request", "points_back"]
