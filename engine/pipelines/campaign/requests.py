"""What a reviewer's comment on the outreach messages asks for, read the same way by the
offline drafter (which applies it) and the feedback-coverage check (which verifies every
backend's revision against it):

- a creator's fee: "Offer the first creator $650 instead", "first creator's fee should be
  1800 USD", "Bump @maya.brews to $1,000", "Offer Dr. Vogel her usual fee of 1800 dollars",
  "pay everyone $400", "raise the second creator's fee by $150";
- a sign-off: "Sign them off from Noa, our events manager", "signature: Dana (head barista)";
- a form no text draft can take: "a short video pitch instead of text", "in German".
Pure: the comment and the creators (handle and name, in the shortlist's order) are arguments."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from engine.pipelines.campaign import money
from engine.pipelines.campaign.money import Money

Creator = tuple[str, str]
"""(handle, name) of a shortlisted creator."""


class FeeAsk(NamedTuple):
    handles: list[str]
    """The creators the fee is for (the shortlist's handles)."""
    amount: int
    change: Literal["set", "raise", "lower"]
    """Set the fee to `amount`, or move it up or down by `amount`."""
    currency: str = "USD"
    """As the comment writes it ("GBP" for "£400"); a bare number is in the budget's US
    dollars."""


class SignOff(NamedTuple):
    name: str
    role: str
    """"events manager" ("" when the comment names none)."""


_FEE_WORD = re.compile(r"\b(?:fees?|pay|paid|paying|offer(?:ed|ing)?|give|rate|bump|raise|"
                       r"increase|lower|reduce|compensat\w*|should get)\b", re.I)
_BARE = re.compile(r"(?<![\w.@:/$-])(\d[\d,]*(?:\.\d+)?)(k\b)?(?!\s?%|[\w:%.-]*\w)", re.I)
# Said to creators, a word like "offer" is what the brand offers them ("say we offer 20% off"):
# only these still make such a comment a fee comment.
_PAY_WORD = re.compile(r"\b(?:fees?|pay|paid|paying|rate)\b", re.I)
_RAISE = re.compile(r"\b(?:raise|bump|increase|add|up)\b[^.;\n]*\bby\s*$|\b(?:another|an extra|"
                    r"extra)\s*$", re.I)
_LOWER = re.compile(r"\b(?:lower|reduce|cut|drop|decrease|down)\b[^.;\n]*\bby\s*$", re.I)
_MORE_AFTER = re.compile(r"^\s*(?:more|extra)\b", re.I)
_LESS_AFTER = re.compile(r"^\s*less\b", re.I)
_ORDINAL = {"first": 0, "1st": 0, "top": 0, "lead": 0, "main": 0, "second": 1, "2nd": 1,
            "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "fifth": 4, "5th": 4, "last": -1}
# Words after "first" that name no creator ("the first week", "the first message").
_NOT_WHO = (r"(?:weeks?|months?|days?|waves?|posts?|videos?|reels?|stor(?:y|ies)|messages?|emails?|"
            r"dms?|texts?|lines?|sentences?|paragraphs?|times?|rounds?|drafts?|versions?|steps?|"
            r"phases?|half|place|things?|two|three|four|few|bits?|parts?|options?|points?|slots?|"
            r"dates?|batch|of|and|or|to|in|on|at|is|was|with|the|a|an)\b")
_BY_ORDER = re.compile(r"\b(first|1st|top|lead|main|second|2nd|third|3rd|fourth|4th|fifth|5th|"
                       r"last)\s+"
                       r"(?:(?:\w+\s+)?(?:creator|influencer|one|person|account|blogger|partner)"
                       # "the first nurse", "the second runner", "first fee": the creator in
                       # that place on the shortlist, whatever the comment calls them
                       rf"|(?!{_NOT_WHO})[a-z][a-z'-]+\b)"
                       r"|\b(?:creator|influencer)\s*#?\s*(\d)\b", re.I)
_EVERYONE = re.compile(r"\b(?:everyone|everybody|(?:each|every|all(?: the)?) (?:creators?|fees?)|"
                       r"all of them|each of them|both(?: creators| of them)?)\b", re.I)
_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|mx|prof)\.?$", re.I)
_MENTION = re.compile(r"^\s*(?:please\s+)?(?:mention|say|add|include|tell|note|highlight)\b",
                      re.I)


def _amount(comment: str) -> Money | None:
    """The money the comment names ("$650", "£400", "1800 USD"); a bare number counts, in US
    dollars, when the comment is about a fee ("fee should be 1800"). Not under 20: "$5 off"."""
    said = [m for m in money.amounts(comment) if m.value >= 20]
    if said:
        # "£1,000? ok fine, call it 1300 USD": the budget is in US dollars, so a fee said in
        # another currency and then in dollars is the dollar one ("$400, up from $250" is
        # the first).
        usd = [m for m in said if m.currency == "USD"]
        return usd[-1] if usd and said[0].currency != "USD" else said[0]
    if not _FEE_WORD.search(comment):
        return None
    return next((Money(v, "USD", b.start(), b.end()) for b in _BARE.finditer(comment)
                 if (v := money.value_of(b.group(1), bool(b.group(2)))) >= 20), None)


# A sentence ends at . ! or ? before a capital or a handle, not after a title ("Dr. Vogel",
# "Mrs. Cohen") or an initial ("J. Levi").
_SENTENCE_SPLIT = re.compile(r"(?<!\b[A-Z][a-z]\.)(?<!\b[A-Z][a-z][a-z]\.)(?<!\b[A-Z]\.)(?<=[.!?])"
                             r"\s+(?=[A-Z@\"'(])")


def sentence_around(comment: str, at: int) -> str:
    """The sentence of `comment` that holds position `at` ("Dr. Vogel" ends none)."""
    start = 0
    for m in _SENTENCE_SPLIT.finditer(comment):
        if m.start() >= at:
            return comment[start:m.start()]
        start = m.end()
    return comment[start:]


def sentences_of(comment: str) -> list[str]:
    return [x for x in _SENTENCE_SPLIT.split(comment) if x.strip()]


def named_creators(comment: str, creators: list[Creator]) -> list[str]:
    """Creators the comment names: by handle, by order ("the first creator"), by a word of
    their name written with its capital ("Dr. Vogel", "Maya"), or all of them."""
    low = comment.lower()
    by_handle = [h for h, _ in creators if h.lower() in low]
    if by_handle:
        return by_handle
    for m in _BY_ORDER.finditer(comment):
        k = _ORDINAL[m.group(1).lower()] if m.group(1) else int(m.group(2)) - 1
        if -len(creators) <= k < len(creators):
            return [creators[k][0]]
    by_name = [h for h, name in creators
               if any(len(part) >= 3 and not _TITLE.match(part)
                      and re.search(rf"\b{re.escape(part)}\b", comment)
                      for part in re.findall(r"[\w'-]+\.?", name))]
    if by_name:
        return by_name
    if _EVERYONE.search(comment) or len(creators) == 1:  # "offer her $500": the only one
        return [h for h, _ in creators]
    return []


def is_fee_comment(comment: str) -> bool:
    """The comment sets or moves a fee (whether or not it says whose)."""
    if not _amount(comment):
        return False
    return bool(_PAY_WORD.search(comment)) if _MENTION.match(comment) else True


def fee_ask(comment: str, creators: list[Creator]) -> FeeAsk | None:
    """The fee the comment asks for, and for whom (None: no fee, or no creator it names)."""
    found = _amount(comment)
    if not found or not is_fee_comment(comment):
        return None
    # Whose fee: the creators the amount's own sentence names ("Raise Lior's fee to $650.
    # Move Maya to email." pays Lior, not Maya), else those the comment names.
    handles = named_creators(sentence_around(comment, found.start), creators) \
        or named_creators(comment, creators)
    if not handles:
        return None
    before, after = comment[:found.start], comment[found.end:]
    change: Literal["set", "raise", "lower"] = "set"
    if _RAISE.search(before) or _MORE_AFTER.match(after):
        change = "raise"
    elif _LOWER.search(before) or _LESS_AFTER.match(after):
        change = "lower"
    return FeeAsk(handles, int(round(found.value)), change, found.currency)


def new_fee(ask: FeeAsk, current: float) -> int:
    if ask.change == "raise":
        return int(round(current + ask.amount))
    if ask.change == "lower":
        return max(0, int(round(current - ask.amount)))
    return ask.amount


# A title's dot ("Dr. Tal Cohen") does not end the phrase a name is read from.
_PHRASE = r"(?:\b(?:dr|mr|mrs|ms|mx|prof)\.|[^.;!?\n])+"
_SIGNS = [re.compile(p, re.I) for p in (
    r"\bsign(?:ed|ing)?(?:[- ](?:them|it|these|those|the messages?|each(?: one| message)?|"
    r"every message|all(?: of)? (?:them|the messages|messages)))?(?:[- ]off)?\s+(?:from|as|by|"
    rf"with)\s+(?P<who>{_PHRASE})",
    r"\b(?:sign[- ]?off|signature|sender)\b[^.;!?\n]*?(?:should be|is|:|=|from|as)\s+"
    rf"(?P<who>{_PHRASE})",
    rf"\bfrom\s+(?P<who>{_PHRASE}?)\s+(?:instead of|rather than|not)\s+(?:the|our)\s+team",
    # "Put Dana, our head barista, as the sender", "with Noa as the signature".
    rf"(?:^|\b(?:put|have|use|make|list|with)\s+)(?P<who>{_PHRASE}?),?\s+as\s+(?:the\s+)?"
    r"(?:sender|signature|sign[- ]?off|signer)\b",
    # "Have Yossi, our head coach, sign every message", "Noa should sign them".
    rf"(?:^|\b(?:have|let|get|ask)\s+)(?P<who>{_PHRASE}?),?\s+(?:should\s+|to\s+|will\s+|"
    r"can\s+)?sign(?:s)?\s+(?:every|each|all|them|the|these|those|off)\b",
)]
_SIGN_TAIL = re.compile(r"\s+(?:instead|rather|not|please|thanks)\b.*$|[)\s,]+$", re.I)
_FILLER = {"our", "the", "a", "an", "from", "as", "by", "and", "with", "who", "is", "she",
           "he", "they", "their", "her", "his", "s", "please", "have", "let", "get", "ask", "can",
           "could", "you", "we", "would", "put", "use", "make", "list"}


def sign_off(comment: str) -> SignOff | None:
    """Who should sign the messages (None: the comment names no one by name)."""
    for pattern in _SIGNS:
        m = pattern.search(comment)
        found = _signer(_SIGN_TAIL.sub("", m.group("who")).strip()) if m else None
        if found:
            return found
    return None


def _signer(who: str) -> SignOff | None:
    """The name (capitalised words) and role (the rest) in "our head barista Dana"."""
    words = re.findall(r"[\w'.-]+", who)
    name_at = [k for k, w in enumerate(words)
               if w[:1].isupper() and w.lower().strip(".") not in _FILLER]
    if not name_at:
        return None
    # The name: the first run of capitalised words (a title before it stays with it).
    first = name_at[0]
    last = first
    while last + 1 < len(words) and words[last + 1][:1].isupper():
        last += 1
    name = " ".join(words[first:last + 1])
    role = " ".join(w for w in words[:first] + words[last + 1:] if w.lower() not in _FILLER)
    return SignOff(name.strip(" ,"), role.lower().strip(" ,"))


_FORMS = (r"video|videos|vlog|audio|voice[- ]?(?:note|memo|message)s?|podcast|poem|song|jingle|"
          r"rap|image|images|photo|photos|picture|gif|meme|pdf|slides?|deck|carousel|"
          r"infographic|storyboard")
LANGUAGES = (r"german|french|spanish|hebrew|arabic|italian|dutch|portuguese|russian|polish|"
              r"turkish|japanese|chinese|mandarin|korean|hindi|greek|swedish|danish|norwegian|"
              r"finnish|czech|ukrainian|yiddish|amharic|thai|vietnamese")
# Asked for as what to make ("make it a short video pitch", "send a voice note instead",
# "as a carousel"), not mentioned as a thing ("mention the video we posted").
_OTHER_FORM = re.compile(
    rf"\b(?:make|turn|do|redo|write|rewrite|send|record|film|shoot|produce|create|convert|"
    rf"change|as|into|want|prefer)\b(?:\s+[\w'-]+){{0,5}}?\s+(?:{_FORMS})\b"
    rf"|\binstead of (?:the )?(?:text|writing|messages?)\b|\btranslat\w*"
    rf"|\b(?:in|into)\s+(?:{LANGUAGES})\b", re.I)


def other_form(comment: str) -> bool:
    """The comment asks for something a text message is not: a video, a voice note, an
    image, another language."""
    return bool(_OTHER_FORM.search(comment))


__all__ = ["LANGUAGES", "Creator", "FeeAsk", "SignOff", "fee_ask", "is_fee_comment",
           "named_creators", "new_fee", "other_form", "sign_off"]
