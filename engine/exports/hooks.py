"""What each pipeline exports as: its `exports` hook, format -> exporter of a RunDetail.
Each exporter is imported on first use: they read the views and the approval policy, which
read the pipelines (so importing them here would be a cycle), and the PDF renderer (fpdf2)
takes about 0.4 s to import, which no worker should pay."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

# An exporter takes the engine.views.RunDetail the caller holds. Typed as Any here: naming
# it, even for type checkers only, would make the pipelines' specs import the views.
Exporter = Callable[[Any], "str | bytes"]


def _on_use(module: str, name: str) -> Exporter:
    def export(d: Any) -> str | bytes:
        fn: Exporter = getattr(importlib.import_module(module), name)
        return fn(d)

    export.__qualname__ = export.__name__ = name
    return export


PROTOCOL_EXPORTS: Mapping[str, Exporter] = {
    "markdown": _on_use("engine.exports.markdown", "protocol_markdown"),
    "pdf": _on_use("engine.exports.pdf", "protocol_handout"),
}
CAMPAIGN_EXPORTS: Mapping[str, Exporter] = {
    "markdown": _on_use("engine.exports.campaign", "campaign_markdown"),
    "csv": _on_use("engine.exports.campaign", "messages_csv"),
    "pdf": _on_use("engine.exports.plan_pdf", "plan_pdf"),
}
