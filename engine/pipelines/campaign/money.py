"""Amounts of money as a campaign's texts write them, read one way for every reader: a goal's
targets ("$5,000 in sales"), a reviewer's fee comment ("Offer Maya £400", "1800 USD"), the fee
a creator's message offers ("a fee of US$1,800", "**$650**"), a table cell ("1,200"). Budgets
and fees are kept in US dollars; an amount in another currency is read with its currency, so
no reader mistakes £400 for $400."""

from __future__ import annotations

import re
from typing import NamedTuple

SYMBOL = r"US\$|[$\u20ac\u00a3]"
"""A currency written before the number: "$", "US$", "€", "£"."""
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
"""Digits as people write an amount: "1,800", "1800", "1.2" (of "1.2k")."""
_WORDS = r"usd|us dollars?|dollars?|bucks|gbp|pounds?(?: sterling)?|quid|eur|euros?"
NAMES = {"USD": "US dollars", "GBP": "pounds", "EUR": "euros"}
SIGNS = {"USD": "$", "GBP": "\u00a3", "EUR": "\u20ac"}

_MONEY = re.compile(
    rf"(?P<sym>{SYMBOL})\s?(?P<n>{NUMBER})(?:\s?(?P<k>k)\b)?"
    rf"|(?<![\w.,])(?P<n2>{NUMBER})(?:\s?(?P<k2>k)\b)?\s*(?P<word>{_WORDS})\b", re.I)
_CELL = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


class Money(NamedTuple):
    value: float
    currency: str
    """"USD", "GBP" or "EUR"."""
    start: int
    end: int


def value_of(digits: str, thousands: bool = False) -> float:
    """"1,800" -> 1800.0; "1.2" with a "k" after it -> 1200.0."""
    return float(digits.replace(",", "")) * (1000 if thousands else 1)


def currency_of(word: str) -> str:
    """"£", "pounds", "GBP" -> "GBP"; "€", "euros" -> "EUR"; "$", "US$", "dollars" -> "USD"."""
    key = word.lower().strip()
    if key == "\u00a3" or key.startswith(("pound", "gbp", "quid")):
        return "GBP"
    if key == "\u20ac" or key.startswith("eur"):
        return "EUR"
    return "USD"


def amounts(text: str) -> list[Money]:
    """Every amount of money the text writes with its currency, in its order."""
    out = []
    for m in _MONEY.finditer(text):
        if m.group("sym"):
            value, currency = value_of(m.group("n"), bool(m.group("k"))), m.group("sym")
        else:
            value, currency = value_of(m.group("n2"), bool(m.group("k2"))), m.group("word")
        out.append(Money(value, currency_of(currency), m.start(), m.end()))
    return out


def usd(text: str) -> list[float]:
    """The US-dollar amounts the text writes (a fee offered, a budget line)."""
    return [a.value for a in amounts(text) if a.currency == "USD"]


def amount(cell: str) -> float | None:
    """The number in a table cell ("1,200", "**1,500**", "$300"), None when it has none."""
    m = _CELL.search(cell.replace("*", ""))
    return float(m.group().replace(",", "")) if m else None


__all__ = ["NAMES", "NUMBER", "SIGNS", "SYMBOL", "Money", "amount", "amounts", "currency_of",
           "usd", "value_of"]
