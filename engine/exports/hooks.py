"""What each pipeline exports as: its `exports` hook, format -> exporter of a RunDetail.
The PDF renderer (fpdf2, about 0.4 s to import) is loaded on first use, not by every
worker and page that imports the pipelines."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from engine.exports.campaign import campaign_markdown, messages_csv
from engine.exports.markdown import protocol_markdown

if TYPE_CHECKING:
    from engine.views import RunDetail

Exporter = Callable[["RunDetail"], "str | bytes"]


def _protocol_pdf(d: RunDetail) -> bytes:
    from engine.exports.pdf import protocol_handout

    return protocol_handout(d)


PROTOCOL_EXPORTS: Mapping[str, Exporter] = {"markdown": protocol_markdown, "pdf": _protocol_pdf}
CAMPAIGN_EXPORTS: Mapping[str, Exporter] = {"markdown": campaign_markdown, "csv": messages_csv}
