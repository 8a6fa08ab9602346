"""The redaction of phone numbers, emails and keys, as plain functions: the cheap guards in
front of the regular expressions must never change what they redact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import redact as r

PHONE_CHARS = "0123456789 ().+-\n.ax"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=PHONE_CHARS, max_size=60), st.text(max_size=20))
def test_the_phone_guard_skips_only_texts_the_phone_pattern_would_leave_alone(
    digits: str, words: str
) -> None:
    for text in (digits, words + digits, digits + words):
        full = r._PHONE.sub(r._phone_like, text)
        assert full == text or r._may_hold_phone(text), repr(text)


def test_phone_numbers_emails_and_keys_go_the_rest_stays(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DRAFTROOM_REDACT_PII", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-planted-0123456789")
    text = ("Call (555) 010-4477 or +44 20 7946 0958, mail ana@example.org; key "
            "sk-test-planted-0123456789 and sk-otherkey12345. Step 3 of 5: call or text 988 "
            "(24/7), the year 2026.")
    out = r.redact_text(text)
    assert "[phone]" in out and "010-4477" not in out and "7946" not in out
    assert "[email]" in out and "ana@" not in out
    assert "sk-" not in out and out.count("[api-key]") == 2
    assert "988" in out and "2026" in out and "Step 3 of 5" in out
