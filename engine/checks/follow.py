"""The checks that follow the text, together: request coverage, feedback coverage, no-change
revisions, clinical harm and campaign consistency, for every draft whoever wrote it (the
offline drafter, a real model, a person). Their findings cap the relevant score, become
notes for the drafter and flags a reviewer sees ("not addressed" on the Run page
and in `python -m engine show`). Pure: the caller reads what they need (engine/follow_context.py
in the loop) and passes it in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from engine.checks.base import CheckResult, FlagOut
from engine.checks.campaign_consistency import campaign_findings
from engine.checks.clinical_harm import clinical_findings
from engine.checks.feedback_coverage import Comment, feedback_findings, no_change_findings
from engine.checks.findings import Finding
from engine.checks.request_coverage import request_findings
from engine.checks.terms import data

NOT_ADDRESSED = "not_addressed"
FOLLOW_CHECKS = frozenset({"request_coverage", "feedback_coverage", "no_change",
                           "campaign_consistency", "clinical_harm"})
"""The `check` names of this module's flags (non-blocking: warnings for the reviewer)."""


class FollowInput(BaseModel):
    """What the checks need besides the draft and the run's input."""

    previous: str | None = None
    """The version this one revises (None: a first version)."""
    author_kind: str = "agent"
    """"human": a person's edit is their own answer to the comments; only the request and
    campaign checks apply to it."""
    comments: list[Comment] = Field(default_factory=list)
    """People's comments on this stage (each with the version it was made about) and the
    critical notes on the previous version."""
    context: dict[str, Any] = Field(default_factory=dict)
    """Campaign: the approved brief, shortlist and outreach (keys "brief", "shortlist",
    "outreach")."""


class FollowResult(BaseModel):
    findings: list[Finding] = Field(default_factory=list)

    @property
    def caps(self) -> dict[str, float]:
        """The binding findings' caps (coverage.toml `binding`), the lowest per score."""
        binding = set(data()["binding"]["categories"])
        caps: dict[str, float] = {}
        for f in self.findings:
            if f.score and f.cap is not None and f.category in binding:
                caps[f.score] = min(caps.get(f.score, 1.0), f.cap)
        return caps

    @property
    def flags(self) -> list[FlagOut]:
        """Flags for the reviewer (clinical harm is flagged by the safety screen already: it
        only caps); those of coverage.toml's [gate] categories block approval, as the safety
        screen's do, and the others are warnings."""
        gate = set(data()["gate"]["categories"])
        return [FlagOut(category=f.category, text=f.text, start=f.start, end=f.end,
                        check=f.check, blocking=f.category in gate)
                for f in self.findings if f.check != "clinical_harm"]

    @property
    def notes(self) -> list[tuple[str, str]]:
        """(priority, text) for the drafter: critical when the finding binds (it must be
        answered), a warning otherwise."""
        binding = set(data()["binding"]["categories"])
        return list(dict.fromkeys(
            ("critical" if f.category in binding and f.cap is not None else "warning", f.note)
            for f in self.findings))

    def redacted(self, redact: Callable[[str], str]) -> FollowResult:
        """With `redact` applied to what is not the draft's own text (a comment quoted in a
        flag or note may carry an address or a phone number: flags are not content)."""
        return FollowResult(findings=[
            f if f.end > f.start else f.model_copy(update={"text": redact(f.text),
                                                           "note": redact(f.note)})
            for f in self.findings])

    def as_check_result(self) -> CheckResult:
        return CheckResult(caps=self.caps, flags=self.flags)


def follow_checks(kind: str, stage: str, text: str, run_input: dict[str, Any],
                  follow: FollowInput | None = None,
                  safety_flags: list[FlagOut] | None = None) -> FollowResult:
    follow = follow or FollowInput()
    found = request_findings(kind, stage, text, run_input)
    if follow.author_kind != "human":
        repeat = no_change_findings(kind, text, follow.previous)
        missed = feedback_findings(kind, text, follow.previous, follow.comments)
        if repeat:
            # The loop's stall halt judges a repeat. A comment newer than the parent would cap
            # the repeat alone and look like a score move: uncapped. One older than the parent
            # capped the parent too: the cap stays, so the repeat's scores tell the truth.
            older = {c.text for c in follow.comments
                     if c.before is not None and c.before != follow.previous}
            missed = [f if f.text in older else f.model_copy(update={"score": None, "cap": None})
                      for f in missed]
        found += repeat + missed
    if kind == "protocol":
        found += clinical_findings(safety_flags or [])
    elif kind == "campaign":
        found += campaign_findings(stage, text, run_input, follow.context,
                                   [c.text for c in follow.comments if c.source == "human"])
    return FollowResult(findings=found)


def gate_flags(kind: str, stage: str, text: str, run_input: dict[str, Any],
               context: dict[str, Any]) -> list[FlagOut]:
    """The follow checks' flags that bind approval (coverage.toml [gate]) on exactly this text:
    read again at approval, whoever wrote it, as the safety screen is."""
    found = follow_checks(kind, stage, text, run_input,
                          FollowInput(author_kind="human", context=context))
    return [f for f in found.flags if f.blocking]


def merge(base: CheckResult, extra: FollowResult) -> CheckResult:
    """The deterministic floor with the follow checks' caps (the lower wins) and flags."""
    caps = dict(base.caps)
    for name, cap in extra.caps.items():
        caps[name] = min(caps.get(name, 1.0), cap)
    return CheckResult(caps=caps, flags=[*base.flags, *extra.flags])


__all__ = ["FOLLOW_CHECKS", "NOT_ADDRESSED", "FollowInput", "FollowResult", "follow_checks",
           "merge"]
