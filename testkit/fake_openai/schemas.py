"""What the fake OpenAI server answers when nothing is scripted: a plausible instance of the
JSON schema the client asked for, wherever the client put that schema."""

from __future__ import annotations

import json
import math
from typing import Any


def example_from_schema(
    schema: dict[str, Any],
    *,
    root: dict[str, Any] | None = None,
    name: str = "value",
    index: int = 0,
    depth: int = 0,
) -> Any:
    """A plausible instance of a JSON schema: every property filled, numbers near the top of
    their range (0.9 in [0, 1]), arrays of two items, the first enum value, non-null options."""
    root = root if root is not None else schema
    if depth > 8:
        return None
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {}) if part else target
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return example_from_schema(merged, root=root, name=name, index=index, depth=depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            chosen = next((o for o in options if o.get("type") != "null"), options[0])
            return example_from_schema(chosen, root=root, name=name, index=index, depth=depth + 1)
    if "allOf" in schema and schema["allOf"]:
        merged = {}
        for part in schema["allOf"]:
            merged.update(part)
        return example_from_schema(merged, root=root, name=name, index=index, depth=depth + 1)

    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"

    if kind == "object":
        props = schema.get("properties", {})
        return {
            k: example_from_schema(v, root=root, name=k, depth=depth + 1) for k, v in props.items()
        }
    if kind == "array":
        lo = schema.get("minItems", 1)
        hi = schema.get("maxItems", 3)
        n = max(lo, min(2, hi))
        items = schema.get("items", {"type": "string"})
        singular = name[:-1] if name.endswith("s") else name
        return [
            example_from_schema(items, root=root, name=singular, index=i, depth=depth + 1)
            for i in range(n)
        ]
    if kind in ("number", "integer"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        if lo is not None and hi is not None:
            value = lo + 0.9 * (hi - lo)
        elif hi is not None:
            value = min(0.9, hi)
        elif lo is not None:
            value = max(0.9, lo)
        else:
            value = 0.9
        if kind == "integer":
            value = int(round(value)) if (lo is not None or hi is not None) else 3
        return value
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    # string
    fmt = schema.get("format")
    if fmt == "date-time":
        return "2025-01-01T09:00:00Z"
    if fmt == "date":
        return "2025-01-01"
    words = name.replace("_", " ").strip() or "value"
    text = f"Example {words}" + (f" {index + 1}" if index else "")
    if len(text) < schema.get("minLength", 0):
        text = text + " …" * schema["minLength"]
    if "maxLength" in schema:
        text = text[: schema["maxLength"]]
    return text


def _looks_like_schema(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        "properties" in obj or "$defs" in obj or obj.get("type") == "object"
    )


def find_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema the client asked for, wherever the client put it."""
    fmt = request.get("response_format") or {}
    if isinstance(fmt, dict):
        if fmt.get("type") == "json_schema":
            return (fmt.get("json_schema") or {}).get("schema")
        if _looks_like_schema(fmt.get("schema")):
            return fmt["schema"]
    decoder = json.JSONDecoder()
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            continue
        start = content.find("{")
        while start != -1:
            try:
                obj, _ = decoder.raw_decode(content, start)
            except json.JSONDecodeError:
                obj = None
            if _looks_like_schema(obj):
                return obj
            start = content.find("{", start + 1)
    return None


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


