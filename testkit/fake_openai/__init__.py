"""A fake OpenAI-compatible server: `replies` (what to answer next), `schemas` (an example
answer from the request's JSON schema) and `server` (the HTTP server itself)."""

from testkit.fake_openai.replies import Plan, Reply
from testkit.fake_openai.schemas import example_from_schema, find_schema
from testkit.fake_openai.server import FakeOpenAI, RecordedRequest, running

__all__ = [
    "FakeOpenAI",
    "Plan",
    "RecordedRequest",
    "Reply",
    "example_from_schema",
    "find_schema",
    "running",
]
