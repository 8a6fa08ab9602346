"""A business described by its kind ("a small yoga studio", "X, a family-run bakery") is not
what it sells: the kind's head noun names the place (studio, shop, agency), the words before
it the trade (yoga, stationery, design). The card once read "What it sells: Small yoga
studio". What it sells is the trade, or what the place itself stands for (a bakery: baked
goods), recorded as an inference so what the person says it sells later replaces it."""

from __future__ import annotations

import re

# The places and organisations a business calls itself; longest first when matched.
PLACES = (
    "coffee shop", "coffee house", "bike shop", "book shop", "ice cream parlour", "b&b",
    "studio", "shop", "store", "cafe", "café", "bakery", "bakehouse", "patisserie", "salon",
    "barbershop", "barber", "gym", "clinic", "practice", "agency", "consultancy", "firm",
    "restaurant", "bistro", "diner", "bar", "pub", "brewery", "distillery", "winery",
    "roastery", "roaster", "boutique", "bookshop", "bookstore", "florist", "school",
    "academy", "company", "business", "brand", "label", "startup", "start-up", "workshop",
    "market", "deli", "pharmacy", "spa", "hotel", "guesthouse", "farm", "nursery", "gallery",
    "centre", "center", "club", "collective", "co-op", "cooperative", "maker", "makers",
    "manufacturer", "retailer", "chain", "franchise", "kitchen", "dojo", "garage", "venue",
)
# What a place sells when its name says it ("a bakery" sells baked goods).
GOODS = {
    "bakery": "baked goods", "bakehouse": "baked goods", "patisserie": "pastries",
    "brewery": "beer", "distillery": "spirits", "winery": "wine", "roastery": "coffee",
    "roaster": "coffee", "coffee shop": "coffee", "coffee house": "coffee", "cafe": "coffee",
    "café": "coffee", "bookshop": "books", "bookstore": "books", "book shop": "books",
    "florist": "flowers", "barber": "haircuts", "barbershop": "haircuts",
    "restaurant": "food", "bistro": "food", "diner": "food", "pub": "drinks", "bar": "drinks",
    "bike shop": "bikes", "ice cream parlour": "ice cream", "deli": "deli food",
    "b&b": "stays", "hotel": "stays", "guesthouse": "stays", "nursery": "plants",
}
# Places that sell a service of their trade ("a hair salon": hair services).
SERVICE = {"salon": "services", "clinic": "services", "agency": "services",
           "practice": "services", "consultancy": "services", "firm": "services",
           "spa": "treatments", "garage": "repairs", "school": "classes", "academy": "classes",
           "dojo": "classes"}
# Words that say how the business is, not what it trades in.
_DESCRIBING = re.compile(
    r"(?i)^(?:small|little|tiny|big|large|local|independent|indie|neighbou?rhood|family|"
    r"new|cosy|cozy|boutique|clean|online|busy|friendly|modern|traditional|young|growing|"
    r"award-winning|premium|luxury|beloved|popular|lovely|sustainable|creative|"
    r"[\w]+-(?:run|owned|based|stage|person|woman|man|founded|led|friendly)|\d+-\w+|"
    r"one|two|three|four|five|a|an|the|our|my)$")
_PLACE = re.compile(r"(?i)\b(" + "|".join(re.escape(p) for p in sorted(PLACES, key=len,
                                                                          reverse=True))
                    + r")s?$")


def trade_of(phrase: str) -> str | None:
    """What a business described as `phrase` sells, when `phrase` is a kind of business
    (None: it is not one, so it says what it sells as it is; "": a kind that says nothing
    about its trade, "a small company", so the agent asks)."""
    words = phrase.strip(" .,;:!?").split()
    text = " ".join(words)
    m = _PLACE.search(text)
    if not m:
        return None
    place = m.group(1).lower()
    trade = [w for w in text[:m.start()].split() if not _DESCRIBING.match(w)]
    goods = GOODS.get(place, "") or (SERVICE.get(place, "") if trade else "")
    if goods and not any(w.lower() in goods for w in trade):
        trade.append(goods)
    return " ".join(trade)
