"""The review queue's run links as AppTest sees them: each card is one Markdown block whose
first line is `[#id · title](run?run=id "whole title")` (ui/queue_view.card_link)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_LINK = re.compile(r'\[(?P<label>(?:\\.|[^\]\\])*)\]\((?P<url>run\?run=\d+)'
                   r'(?: "(?P<hover>(?:\\.|[^"\\])*)")?\)')
_ESCAPED = re.compile(r"\\(.)")


@dataclass(frozen=True)
class CardLink:
    label: str
    """As shown (Markdown escapes undone)."""
    query_string: str
    """"run=<id>"."""
    hover: str | None


def card_links(at: Any) -> list[CardLink]:
    """Every run link on the queue page, in order."""
    found = []
    for md in at.markdown:
        for m in _LINK.finditer(md.value):
            hover = m.group("hover")
            found.append(CardLink(_ESCAPED.sub(r"\1", m.group("label")),
                                  m.group("url").split("?", 1)[1],
                                  _ESCAPED.sub(r"\1", hover) if hover is not None else None))
    return found
