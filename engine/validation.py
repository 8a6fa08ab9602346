"""Turning pydantic errors into messages that name the field and the limit."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.errors import InvalidInput

M = TypeVar("M", bound=BaseModel)


def _message(err: dict[str, Any]) -> str:
    ctx = err.get("ctx") or {}
    kind = err.get("type", "")
    if kind == "string_too_short":
        n = ctx.get("min_length", 1)
        return "is required" if n <= 1 else f"must be at least {n} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        return f"must be one of: {ctx.get('expected', '')}"
    return str(err.get("msg", "is not valid"))


def parse_input(model: type[M], data: Any) -> M:
    """Validate `data` as `model` or raise InvalidInput with one message per field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        fields: dict[str, str] = {}
        for err in exc.errors():
            name = ".".join(str(p) for p in err.get("loc", ())) or "input"
            fields.setdefault(name, _message(err))
        summary = "; ".join(f"{k.replace('_', ' ')} {v}" for k, v in fields.items())
        raise InvalidInput(summary[:1000], fields) from None
