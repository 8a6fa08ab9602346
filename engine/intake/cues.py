"""The words the offline extractor reads: the phrases that introduce each field, what a name,
a place and an amount look like, and what a yes or a correction sounds like. Patterns are
case-insensitive except where a capital letter is the signal (a name, a place)."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from functools import lru_cache

from engine.intake.fields import FIELDS


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern[str]
    fields: tuple[str, ...]
    """The fields the phrase may introduce, preferred first (rules._pick chooses)."""
    source: str = "user_input"
    type_word: str = ""


def _cue(rx: str, *fields: str) -> Cue:
    return Cue(re.compile(rx), fields)


@lru_cache(maxsize=1)
def label_cues() -> tuple[Cue, ...]:
    """"budget: 4000", "Our audience is ...", "tone - warm": a field's label at the start of a
    clause and a separator."""
    out = []
    for f in FIELDS:
        labels = "|".join(re.escape(x) for x in sorted(f.labels, key=len, reverse=True))
        out.append(_cue(rf"(?i:(?:^|(?<=[;,.(\n])|\band\b)\s*(?:our|the|my|your)?\s*"
                        rf"(?:{labels})\s*(?::|=|–|\s-\s|\bis\b|\bare\b|'s\b|\bwould be\b)\s*)",
                        f.name))
    return tuple(out)


# Who a business serves, as "we serve ..." goes on: people, not what is served.
PEOPLE = (r"(?:(?:the|our|local|young|busy|mostly|mainly|small|new|older)\s+)*(?:people|"
          r"customers|clients|famil\w*|students|professionals|parents|kids|children|teens|"
          r"locals|residents|commuters|tourists|visitors|patients|athletes|runners|workers|"
          r"businesses|companies|shops|restaurants|members|women|men|seniors|retirees|couples|"
          r"owners|neighbou?rs|communit\w*|everyone|anyone|teams|brands)\b")

# A month's name or abbreviation: "June 1 - August 31" starts with no business name.
_MONTH = r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b"

PHRASES: tuple[Cue, ...] = (
    _cue(r"(?i:\b(?:we(?:'re|\s+are)\s+called|it'?s\s+called|is\s+called|called|named|"
         r"name\s+is|name's|i\s+run|we\s+run|i\s+own|we\s+own|i\s+manage|i\s+founded|"
         r"(?:lead|manager|owner|founder|director|head|ceo|cmo)\s+(?:at|of)|work\s+(?:at|for)|"
         r"i(?:'m|\s+am)\s+with|"
         r"we(?:'re|\s+are)|this\s+is))\s+(?=[A-Z0-9])", "business_name"),
    _cue(r"(?i:\b(?:we|i)\s+(?:sell|make|bake|brew|roast|provide|run|design|build|teach|"
         r"repair|create|produce|do))\b\s+(?=[a-z0-9])(?!the\b)", "sells", "products"),
    _cue(r"(?i:\b(?:we(?:'re|\s+are)|it(?:'s|\s+is)|i(?:'m|\s+am))\s+(?:a|an)\b)\s+(?=[a-z])",
         "sells"),
    # "Quick intro: Saltmarsh Ceramics, a pottery studio", "Spoke & Chain is a bike shop": a
    # name that opens a sentence (or follows a colon) and is described right after it.
    # "Academia Puente is an English language school", "Kloof Street Motors — we're a car
    # service garage", "Librairie Les Feuilles – independent bookshop".
    _cue(r"(?:^|(?<=:\s))(?!(?:\d{1,2}(?:st|nd|rd|th)?\s+)?" + _MONTH + r")"
         r"(?=[A-Z0-9][\w&'’.-]*(?:\s+(?:(?:&|de|la|les|le|del|da|do|of|the)\s+)?"
         r"[A-Z0-9][\w&'’.-]*)*(?:(?:,|\s+is)\s+an?\s+[A-Za-z]|\s*[—–]\s*\S|\s+-\s+\S))",
         "business_name"),
    _cue(r"(?i:\b(?:products?|services?|items?)\s+to\s+(?:feature|promote|push|highlight|show)"
         r"(?:\s+are|\s*:)?)\s*", "products"),
    _cue(r"(?i:\b(?:describe|call)\s+(?:our|the|its|my)\s+(?:tone|voice|style)\s+as)\s+",
         "voice"),
    _cue(r"(?i:\b(?:we\s+(?:also\s+)?(?:sell|offer|make)\s+(?=the\b)|we\s+offer\b|"
         r"(?:our\s+)?(?:main\s+|key\s+|best[- ]selling\s+|core\s+)?(?:products?|services|"
         r"offerings|range|menu|best\s*sellers)\s+(?:are|is|include|includes)\b))\s*",
         "products", "sells"),
    _cue(r"(?i:\b(?:(?:our\s+)?(?:customers|clients|guests|buyers|users|readers|members|"
         r"students|patients|fans|followers|visitors|shoppers|diners|regulars|community|"
         r"audience|people|riders|players|parents|subscribers)\s+"
         r"are(?:\s+mostly|\s+mainly)?|we\s+(?:mostly\s+|mainly\s+)?target|targeting|aimed\s+at|"
         rf"we\s+serve(?=\s+{PEOPLE})|popular\s+with))\s+", "audience"),
    # "we serve tacos and aguas frescas": what is served, unless it is people (above).
    _cue(rf"(?i:\bwe\s+(?:also\s+)?serve(?!\s+{PEOPLE}))\s+", "sells", "products"),
    _cue(r"(?i:\b(?:(?:our\s+|the\s+|brand\s+)?(?:voice|tone)(?:\s+of\s+voice)?\s+(?:is|should\s+"
         r"be)|we\s+sound|we(?:'re|\s+are)\s+known\s+for\s+being|sounds?\s+like))\s+", "voice"),
    _cue(r"(?i:(?:\b(?:we\s+)?(?:must|should|can)?\s*(?:never|don't|do\s+not|mustn't|"
         r"shouldn't|cannot|can't)\s+(?:ever\s+)?(?:claim|say|mention|promise|use\s+the\s+"
         r"words?|call\s+(?:it|us|them))(?:ing)?(?:\s+(?:that|anything\s+is|we're|we\s+are))?|"
         r"\bavoid(?:\s+(?:claiming|saying|mentioning|using|the\s+words?|claims?\s+(?:like|"
         r"about|of|that)))?|\bbanned\s+(?:claims?|words?)(?:\s+(?:are|is))?|\bno\s+claims?\s+"
         r"(?:about|of|that|like)))\s*:?\s*", "banned_claims"),
    _cue(r"(?i:\b(?:based|located|headquartered)\s+(?:in|out\s+of)|\bwe(?:'re|\s+are)\s+"
         r"(?:over\s+|out\s+|up\s+|down\s+)?in)\s+", "region"),
    _cue(r"\b[Ii]n(?=\s+[A-Z])\s+", "region"),
    _cue(r"\b(?:[Bb]ased\s+)?from(?=\s+[A-Z])\s+", "region"),  # "a skincare brand from Seoul"
    _cue(r"(?i:\b(?:(?:the\s+|our\s+|main\s+|campaign\s+)?(?:goal|aim|objective)\s+(?:is|would\s+"
         r"be)(?:\s+to)?|(?:we|i)(?:'d|\s+would)?\s+(?:really\s+)?(?:want|like|need|hope|love)"
         r"\s+to|we'd\s+like|(?:we|i)\s+(?:want|need)(?!\s+to\b)|(?:we|i)(?:'re|\s+are|'m|\s+am)\s+(?:hoping|trying|looking|aiming)"
         r"\s+to|hoping\s+to|trying\s+to|aiming\s+to))\s+", "goal"),
)

# A bare answer that names people ("couples planning weddings", "Spanish teenagers and their
# parents", "Lads 16-35") is the audience, whatever was asked: a few modifiers, a people noun,
# then the end or a word that goes on about them (not "family portrait sessions").
WHO = re.compile(r"^(?:[\w'-]+\s+){0,3}?(?:people|persons|folks|customers|clients|famil(?:y|ies)|"
                 r"students|professionals|parents|mums|moms|dads|kids|children|teens|teenagers|"
                 r"youth|adults|millennials|locals|residents|commuters|tourists|travell?ers|"
                 r"backpackers|visitors|patients|athletes|runners|cyclists|climbers|surfers|"
                 r"workers|employees|staff|managers|leads|partners|founders|entrepreneurs|"
                 r"freelancers|designers|developers|engineers|nurses|teachers|doctors|owners|"
                 r"homeowners|landlords|tenants|renters|drivers|gamers|creators|readers|"
                 r"shoppers|diners|foodies|brides|grooms|couples|singles|expats|women|men|"
                 r"lads|guys|girls|seniors|retirees|pensioners|hospitals|clinics|schools|"
                 r"firms|agencies|businesses|companies|startups|shops|restaurants|members|"
                 r"fans|followers|subscribers|buyers|users|anyone|everyone|neighbou?rs)"
                 r"(?=\s*$|\s*[,.;!?(]|\s+(?:and|or|who|that|with|in|at|from|near|around|across|"
                 r"of|aged|[0-9]|planning|looking|wanting|needing|visiting|living|working|based|"
                 r"mostly|mainly|really|plus|like|on|for|into)\b)", re.I)

# A bare answer made of these (with a few fillers) describes the brand's voice, whatever the
# agent asked: "nerdy, precise, a bit funny" is no audience.
TONE_WORDS = frozenset("""
friendly upbeat cheeky warm playful calm professional witty casual bold quirky relaxed fun
funny serious formal informal approachable confident cheerful chill sarcastic irreverent elegant
luxurious minimal minimalist honest direct energetic enthusiastic caring gentle kind
authoritative expert trustworthy modest humble sophisticated youthful edgy laid-back
down-to-earth earthy nerdy geeky punchy sincere heartfelt welcoming inclusive optimistic
positive bubbly dry clever smart classy refined polished rustic cozy cosy neighbourly neighborly
helpful knowledgeable passionate precise reassuring supportive motivating inspiring empowering
sassy lighthearted light-hearted silly goofy wholesome transparent tongue-in-cheek
conversational plain simple straightforward no-nonsense festive calming soothing grounded
encouraging respectful thoughtful understated luxe premium chatty quiet loud cool hip trendy
nostalgic retro artsy poetic dreamy romantic cheerful zen mindful earnest humorous
""".split())
TONE_FILLERS = frozenset("""
a an bit very and but not too quite little really with of touch always never more less
slightly super sort kind-of somewhat mostly mainly also yet always tone voice our we sound
are is it's its
""".split())

_NAME_TOKEN = r"[A-Z0-9&][\w'’&.+-]*"
NAME = re.compile(rf"{_NAME_TOKEN}(?:\s+(?:(?:&|and|of|the|de|la|le|les|du|del|da|do|von|van)\s+)?"
                  rf"{_NAME_TOKEN})*")
PLACE = re.compile(r"([A-Z][\w'’.-]*(?:[ -](?:[A-Z][\w'’.-]*|de|la|upon|on)(?=\W|$))*"
                   r"(?:,\s*[A-Z][\w'’.-]*(?:\s[A-Z][\w'’.-]*)*)?)")
NOT_PLACES = {m.lower() for m in (*calendar.month_name[1:], *calendar.day_name)} | {
    "instagram", "email", "whatsapp", "teams", "sms", "the", "our", "my", "spring", "summer",
    "autumn", "fall", "winter", "christmas", "easter", "q1", "q2", "q3", "q4", "usd", "a", "an"}
SELLS_AFTER_NAME = re.compile(r"\s*(?:,\s*|\s+is\s+|\s+-\s+)(?:a|an)\s+(?=[A-Za-z])|"
                              r"\s*(?:[—–]|\s-)\s*(?:we(?:'re|\s+are)\s+)?(?:(?:a|an)\s+)?"
                              r"(?=[A-Za-z])")
TYPE_WORD = re.compile(r"(?i:\b(?:my|our)\s+(bakery|cafe|café|coffee\s+shop|shop|store|studio|"
                       r"restaurant|gym|salon|bookshop|bookstore|boutique|bar|brewery|clinic|"
                       r"agency|school|bike\s+shop|florist))\s+(?=is\s+called|is\s+named|'s\s+"
                       r"called|called)")
MONEY = re.compile(r"(?:\$|\busd\s?)\s?\d[\d,]*(?:\.\d+)?\s*(?:k|thousand|m|million)?\b|"
                   r"\b\d[\d,]*(?:\.\d+)?\s*(?:k|thousand|m|million)?\s*(?:usd|dollars?|bucks)\b|"
                   r"\b\d+(?:\.\d+)?k\b(?!\s+[a-z])", re.I)
CORRECTION = re.compile(r"\b(?:no\s+wait|wait|actually|sorry|i\s+mean|make\s+it|rather|"
                        r"correction|instead|no,)", re.I)
CHANNEL_CONTEXT = re.compile(r"\b(?:channels?|via|through|over|reach|outreach|contact|by|"
                             r"message\s+them)\b", re.I)
GENERIC = re.compile(r"(?:(?:plan|run|start|create|set\s+up|do|make|launch|build|get\s+help\s+"
                     r"with|help\s+with|work\s+on|talk\s+about)\s+)?(?:an?\s+|some\s+|my\s+|"
                     r"our\s+|the\s+)?(?:new\s+)?(?:influencer\s+|marketing\s+|social\s+media\s+)*"
                     r"(?:campaign|marketing|influencers)(?:\s+(?:with\s+you|please|for\s+us|for"
                     r"\s+my\s+business|for\s+(?:my|our)\s+[\w-]+))?", re.I)
PREAMBLE = re.compile(r"^(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening))(?:\s+there)?"
                      r"[!,.\s]*)?(?:(?:i|we)\s*(?:'d|\s+would)?\s*(?:want|need|like|'m\s+"
                      r"looking|am\s+looking)\s+to\s+)?", re.I)
YES = re.compile(r"^\s*(?:oh\s+|ok(?:ay)?[,\s]+)?(?:yes|yep|yeah|yup|sure|correct|confirm(?:ed)?|"
                 r"that'?s\s+(?:all\s+)?(?:right|correct|it)|that\s+is\s+correct|looks\s+(?:good|"
                 r"right|great|fine)|all\s+(?:good|correct)|sounds\s+(?:good|right|great)|"
                 r"go\s+ahead|perfect|ok(?:ay)?|right|exactly|approved?|lgtm|spot\s+on)\b", re.I)
