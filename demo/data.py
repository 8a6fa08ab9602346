"""The demo's data: models by share with their speed and error rate, the errors a call can
fail with, what people ask for, who they are, and the drafts' text."""

from __future__ import annotations

KIND_SHARE = {"protocol": 0.6, "campaign": 0.4}

# model, share of runs, backend, speed factor (latency multiplier), error rate
MODELS: tuple[tuple[str, float, str, float, float], ...] = (
    ("gpt-4.1-mini", 0.30, "openai", 1.0, 0.015),
    ("gpt-4.1", 0.12, "openai", 1.4, 0.015),
    ("gpt-4o-mini", 0.10, "openai", 0.9, 0.015),
    ("gpt-5-mini", 0.15, "openai", 1.7, 0.02),
    ("gpt-5", 0.06, "openai", 2.6, 0.02),
    ("o4-mini", 0.06, "openai", 2.1, 0.02),
    ("gpt-4.1-nano", 0.08, "openai", 0.6, 0.015),
    ("llama3.1:8b", 0.05, "openai", 1.9, 0.06),  # a local Ollama model: no price, "unpriced"
    ("offline-v1", 0.08, "offline", 0.004, 0.0),
)
ERRORS = (("timeout", "Request timed out after 60s", 60_000.0),
          ("rate_limit", "Rate limit reached for requests", 400.0),
          ("server", "The server had an error while processing your request", 2_500.0),
          ("malformed", "Output did not match the schema after one repair", 9_000.0))
INTENTS = ("Help a university student manage exam panic", "Ease sleep worry with scheduled "
           "worry time", "Challenge anxious thoughts before social events",
           "Plan pleasant activities for a low week", "Reframe stressful thoughts at work",
           "Write a letter to someone you have lost", "Face the body sensations of panic",
           "Test a perfectionist rule with a small experiment")
GOALS = ("Autumn blend launch", "Loyalty app relaunch", "Cold brew summer push",
         "Holiday gift boxes", "Subscription win-back", "New store opening",
         "Barista training series", "Sustainability report")
PEOPLE = {"protocol": ("dr. lee", "dr. okafor", "dr. ruiz"),
          "campaign": ("sam (marketing)", "priya (brand)", "alex (growth)")}

DRAFTS = {  # a protocol's drafts come from the offline drafter (demo/drafts.py)
    "campaign": ("# {stage}: {goal}\n\nAlma Cafe, for coffee lovers: {goal}.\n\n"
                 "- Lead with what is new and where it comes from.\n"
                 "- Keep each message short and in the brand's friendly voice.\n"
                 "- One clear call to action: {action}.\n"),
}
ACTIONS = ("visit the cafe this week", "bring a friend on Saturday morning",
           "show the message at the counter", "reply to book a tasting",
           "follow us for the launch date")
"""A campaign stage's versions differ in their call to action, as a revision would."""
