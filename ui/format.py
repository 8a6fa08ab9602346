"""Words and colours for statuses, reasons and times, shared by every page."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.run_state import HALT_LABELS, RunStatus, halt_label
from ui.markdown import escape_inline

STATUS = {
    RunStatus.QUEUED: ("Queued", "gray", ":material/schedule:"),
    RunStatus.RUNNING: ("Working", "blue", ":material/autorenew:"),
    RunStatus.REVIEW: ("Awaiting review", "orange", ":material/rate_review:"),
    RunStatus.APPROVED: ("Approved", "green", ":material/check_circle:"),
    RunStatus.REJECTED: ("Rejected", "gray", ":material/block:"),
    RunStatus.FAILED: ("Failed", "red", ":material/error:"),
}

HALT_REASON = HALT_LABELS  # engine/run_state.py: one wording for the page and the CLI

NODE = {
    "draft": "Drafter writing",
    "review": "Critics scoring",
    "decide": "Supervisor deciding",
    "advance": "Moving to the next stage",
}

ACTION = {
    "approve": "Approved",
    "approve_override": "Approved with override",
    "edit": "Edited",
    "revise": "Sent back for revision",
    "reject": "Rejected",
    "halt": "Halted",
    "cancel": "Cancelled",  # stream: a queued run called off (engine/cancel.py)
    "retry": "Retried",
    "budget": "Changed budget",
    "approve_partial": "Approved (first of two)",
    "approve_partial_override": "Approved with override (first of two)",
    "assign": "Assigned",
    "branch": "Branched",
}

PRIORITY = {"critical": ("red", ":material/error:"), "warning": ("orange", ":material/warning:"),
            "info": ("blue", ":material/info:")}


def status_label(status: str) -> str:
    return STATUS.get(status, (status.replace("_", " ").capitalize(), "gray", ""))[0]


def status_badge(status: str) -> str:
    """Markdown for a coloured status badge."""
    label, color, icon = STATUS.get(status, (status, "gray", ""))
    return f":{color}-badge[{icon} {label}]"


def halt_reason(reason: str | None) -> str:
    return halt_label(reason)


def ago(at: datetime, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    secs = max(0, int((now - at).total_seconds()))
    if secs < 45:
        return "just now"
    if secs < 3600:
        return f"{max(1, round(secs / 60))} min ago"
    if secs < 86400:
        return f"{round(secs / 3600)} h ago"
    days = round(secs / 86400)
    return f"{days} day{'s' if days != 1 else ''} ago" if days < 30 else f"{at:%d %b %Y}"


def duration(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def usd(x: float | None) -> str:
    if x is None:
        return "—"
    return f"${x:,.4f}" if x < 1 else f"${x:,.2f}"


def score_chips(scores: dict[str, float], thresholds: dict[str, float]) -> str:
    """Markdown badges, green when a score meets its threshold, orange when it does not."""
    chips = []
    for name in list(thresholds) + sorted(set(scores) - set(thresholds)):
        if name not in scores:
            continue
        value = scores[name]
        ok = value >= thresholds.get(name, 0.0)
        chips.append(f":{'green' if ok else 'orange'}-badge[{escape_inline(name)} {value:.2f}]")
    return " ".join(chips)


def flag_chip(count: int, overridden: bool = False) -> str:
    """Open blocking flags in red; on a run approved over them, an orange "override" chip
    instead (they are not unresolved any more, but nor was the approval a clean one)."""
    if overridden:
        what = f" {count} flag{'s' if count != 1 else ''}" if count else ""
        return f":orange-badge[:material/gpp_maybe: approved over{what or ' a flag'}]"
    if not count:
        return ""
    return f":red-badge[:material/flag: {count} flag{'s' if count != 1 else ''}]"
