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


def test_ids_versions_and_decimals_are_not_phone_numbers(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DRAFTROOM_REDACT_PII", raising=False)
    kept = ["worker-vm-1234567", "worker_1234567 claimed run 12", "pid 1234567",
            "run 1234567 of 9", "id=4815162342", "pi is 3.1415926", "0.123456789",
            "version 2.10.1234567", "v1.2.3", "on 2026-11-23 21:40:00", "step 3 of 5: 988"]
    for text in kept:
        assert r.redact_text(text) == text, text
    gone = {"call 555-0134.": "call [phone].", "+1 415 555 0134": "[phone]",
            "(555) 010-4477": "[phone]", "+44 20 7946 0958": "[phone]",
            "555.123.4567": "[phone]", "text 4155550134 now": "text [phone] now",
            "1-800-273-8255": "[phone]"}
    for text, want in gone.items():
        assert r.redact_text(text) == want, text


def test_redact_input_counts_what_it_took(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DRAFTROOM_REDACT_PII", raising=False)
    data = {"intent": "Help jane@example.org (+1 415 555 0134) with worker-vm-1234567",
            "channels": ["sms", "call 555-0134"], "budget": 5000}
    out, found = r.redact_input(data)
    assert out == {"intent": "Help [email] ([phone]) with worker-vm-1234567",
                   "channels": ["sms", "call [phone]"], "budget": 5000}
    assert found == {"email": 1, "phone": 2}
    assert r.describe_redactions(found) == "1 email address and 2 phone numbers"


def test_a_crisis_line_the_desk_knows_is_no_personal_number(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A reviewer's "add the TelefonSeelsorge, 0800 111 0 111" kept it (it was "[phone]" before);
    # a person's own number beside it still goes.
    monkeypatch.delenv("DRAFTROOM_REDACT_PII", raising=False)
    out = r.redact_text("Add the TelefonSeelsorge, 0800 111 0 111, and her mum on 0171 2345678.")
    assert "0800 111 0 111" in out and "2345678" not in out and "[phone]" in out
