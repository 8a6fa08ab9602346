"""A refused form's errors where the person looks: each field's message under its own widget,
and one line at the foot of the form saying that nothing happened."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import annotated_types
from pydantic import BaseModel

from engine.errors import InvalidInput


def show_field_errors(exc: InvalidInput, slots: dict[str, Any], *, labels: dict[str, str],
                      nothing: str, blank: Collection[str] = ()) -> None:
    """`slots` maps a field to the placeholder under its widget, and "_form" to the one at the
    foot; `nothing` says what did not happen ("Nothing was started"). A field in `blank` was
    left empty: "is required" reads better there than a length rule. When a field has no slot
    of its own, the whole message goes at the foot so nothing is lost."""
    shown = False
    for field, message in exc.fields.items():
        key = field.split(".")[0]
        if key in blank:
            message = "is required"
        slot = slots.get(key)
        if slot is not None:
            label = labels.get(key, key.replace("_", " ").capitalize())
            slot.error(f"{label} {message}.", icon=":material/error:")
            shown = True
    if not shown or any(f.split(".")[0] not in slots for f in exc.fields):
        slots["_form"].error(f"{nothing}: {exc}", icon=":material/error:")
    else:
        slots["_form"].error(f"{nothing}: fix the fields marked above.", icon=":material/error:")


def max_len(model: type[BaseModel], field: str) -> int | None:
    """A text field's max_length as the input model declares it, for the form's character
    counter (st.text_area/text_input max_chars): one limit, stated once, in the model."""
    for meta in model.model_fields[field].metadata:
        if isinstance(meta, annotated_types.MaxLen):
            return int(meta.max_length)
    return None
