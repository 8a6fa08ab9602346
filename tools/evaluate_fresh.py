"""The offline drafters and the follow checks, end to end, on requests and comments written
after both (tests/data/coverage_fresh.json, its provenance inside): each request is started
as a run and driven by the loop to review on the offline backend, each comment is sent back
on the first version and driven again, each campaign is approved stage by stage to its plan.

Per case it asks what a careful reviewer asks of the text (the drafter's side), and whether
the checks' flags agree (the judgement's side): a request flag on a draft that answers the
request is a false alarm, none on one that does not is a miss; a "not addressed" flag should
stand exactly when the comment is neither applied nor reported; a run must not halt with
"thresholds met" while a comment is not addressed.

    python -m tools.evaluate_fresh [set.json] [--errors]     (a throwaway SQLite file)
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "coverage_fresh.json"
ACTOR = "eval (clinician)"
Case = dict[str, Any]


def _drive(run_id: int) -> None:
    from engine.llm.offline.backend import OfflineBackend
    from engine.loop.leases import claim_run
    from engine.loop.supervisor import Supervisor

    assert claim_run(run_id, "eval")
    Supervisor(OfflineBackend(), "eval").run_until_idle(run_id)


def _steps(text: str) -> list[str]:
    body = text.split("## Steps", 1)[-1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if re.match(r"\s*\d+\.\s", line)]


def _flags(d: Any, check: str) -> list[str]:
    return [f"{f.category}: {f.text[:70]}" for f in d.current.flags if f.check == check]


def protocol_case(case: Case) -> dict[str, Any]:
    from engine import service, views
    from engine.llm.offline.protocol import library as lib

    run_id = service.start_run(kind="protocol", actor=ACTOR,
                               input={"intent": case["intent"], "audience": "adults"})
    _drive(run_id)
    d = views.get_run(run_id)
    text = d.current.content  # type: ignore[union-attr]
    steps = _steps(text)
    why = []
    if case.get("technique"):
        title = lib.TEMPLATES[case["technique"]]["title"].lower()
        if title not in text.split("\n", 1)[0].lower():
            why.append(f"not drafted as {case['technique']}")
    for w in case["words"]:
        if sum(w.lower() in s.lower() for s in steps) < case["min_steps"]:
            why.append(f"'{w}' on fewer than {case['min_steps']} steps")
    if case.get("steps") and len(steps) != case["steps"]:
        why.append(f"{len(steps)} steps, not the {case['steps']} asked for")
    if case.get("urges"):
        joined = " ".join(steps).lower()
        if not ("urge" in joined and "wait" in joined and "minute" in joined):
            why.append("no urge delay")
        if "safety plan" not in text.lower():
            why.append("no safety plan")
    flagged = _flags(d, "request_coverage")
    return {"id": case["intent"], "right": not why, "why": why, "flagged": flagged,
            "halt": d.halt_reason, "scores": d.current.scores}  # type: ignore[union-attr]


def protocol_feedback_case(case: Case) -> dict[str, Any]:
    from engine import service, views

    run_id = service.start_run(kind="protocol", actor=ACTOR,
                               input={"intent": case["intent"], "audience": "adults"})
    _drive(run_id)
    first = views.get_run(run_id)
    service.request_revision(run_id=run_id, actor=ACTOR, comment=case["comment"],
                             expected_version=first.version)
    _drive(run_id)
    d = views.get_run(run_id)
    return _judge_comment(case, first.current.content, d)  # type: ignore[union-attr]


def _judge_comment(case: Case, before: str, d: Any) -> dict[str, Any]:
    text = d.current.content
    # Reported: the drafter quotes the comment, or the sentence of it it could not apply.
    flat = " ".join(case["comment"].split())
    noted = any(q in flat for q in re.findall(r'Not applied: "(.+?)"(?: \(|$)', text, re.M))
    expect = case.get("expect")
    if expect in ("NOTE", "NOTE_OR_APPLIED"):
        applied = expect == "NOTE_OR_APPLIED" and text != before and not noted
        right = noted or applied
    elif "expect_fee" in case:
        applied = _first_creator_fee(text) == case["expect_fee"]
        right = applied
    else:  # in the text itself, not quoted back under Open points
        body = re.sub(r"\n## Open points\n.*?(?=\n## |\Z)", "", text, flags=re.S)
        applied = all(w.lower() in body.lower() for w in expect)
        right = applied
    # A comment reported as not applied is still not addressed: the reviewer must act on it.
    flagged = case["comment"] in d.current.not_addressed
    return {"id": f"{case.get('intent') or case.get('goal')} <- {case['comment']}",
            "right": right, "why": [] if right else ["comment neither applied nor reported"],
            "applied": applied, "flag_right": flagged != applied,
            "false_progress": d.halt_reason == "thresholds_met" and not applied,
            "halt": d.halt_reason,
            "flagged": [f"not addressed: {x}" for x in d.current.not_addressed]}


def _first_creator_fee(outreach: str) -> int | None:
    section = outreach.split("\n## @", 2)[1] if "\n## @" in outreach else ""
    # "**$650**" (bold in a DM), "US$1,800" (an email)
    m = re.search(r"fee of \**(?:US)?\$([\d,]+)", section)
    return int(m.group(1).replace(",", "")) if m else None


def _campaign_input(case: Case) -> dict[str, Any]:
    from engine.pipelines.campaign.brands import list_brands

    b = next(x for x in list_brands() if x.name == case["brand"])
    return {"brand_id": b.id, "brand_name": b.name, "goal": case["goal"],
            "audience": "locals who follow the brand", "budget": case["budget"],
            "channels": case["channels"], "num_creators": case["num_creators"]}


def _approve(run_id: int) -> Any:
    from engine import service, views
    from engine.errors import ApprovalBlocked

    d = views.get_run(run_id)
    try:
        service.approve(run_id=run_id, actor="eval (marketer)", expected_version=d.version)
    except ApprovalBlocked:  # an off-product stage: judged in its case; move on to the next
        service.approve(run_id=run_id, actor="eval (marketer)", expected_version=d.version,
                        override_reason="evaluation: the stage is scored, the next one drafted")
    _drive(run_id)
    return views.get_run(run_id)


def _section(text: str, name: str) -> str:
    return text.split(f"## {name}", 1)[-1].split("\n## ", 1)[0] if f"## {name}" in text else ""


def campaign_case(case: Case) -> dict[str, Any]:
    from engine import service, views

    run_id = service.start_run(kind="campaign", actor="eval (marketer)",
                               input=_campaign_input(case))
    _drive(run_id)
    texts, flagged, halts = {}, {}, {}
    d = views.get_run(run_id)
    for stage in ("brief", "creators", "outreach", "plan"):
        texts[stage] = d.current.content  # type: ignore[union-attr]
        flagged[stage] = _flags(d, "campaign_consistency")
        halts[stage] = d.halt_reason
        if stage != "plan":
            d = _approve(run_id)
    why = []
    product = case["product"].lower()
    brief = texts["brief"]
    for part in ("Key messages", "Deliverables"):
        if product not in _section(brief, part).lower():
            why.append(f"brief {part.lower()} without '{product}'")
    if texts["outreach"].lower().count(product) < 2:
        why.append("outreach does not promote the product")
    for word in case.get("dates", []):
        if word.lower() not in _section(brief, "Timeline").lower():
            why.append(f"brief timeline without {word}")
    for number in case.get("numbers", []):
        if number not in _section(brief, "Success metrics"):
            why.append(f"brief metrics without {number}")
        if number not in _section(texts["plan"], "KPIs"):
            why.append(f"plan KPIs without {number}")
    outreach = texts["outreach"]
    if "### Teams" in outreach:
        why.append("creators messaged on Teams")
    why += _channel_disagreements(texts)
    # Not "10-class passes", nor a number in the product's own name ("mineral SPF 30").
    goal = re.sub(re.escape(case["product"]), " ", case["goal"], flags=re.I)
    numbers = re.findall(r"\d[\d,]*(?!-[a-z])\b", goal)
    if any(re.search(rf"(?<!\$)\b{n}\b", outreach) for n in numbers):  # "$500" is a fee
        why.append("the goal's internal target in creator messages")
    return {"id": f"{case['brand']}: {case['goal']}", "right": not why, "why": why,
            "flagged": [f"{s}: {x}" for s, xs in flagged.items() for x in xs],
            "halt": ", ".join(f"{s} {h}" for s, h in halts.items())}


def _channel_disagreements(texts: dict[str, str]) -> list[str]:
    """Each shortlisted creator is reached on the channel the shortlist's Contact column
    names: the outreach has a message on it (others beside it are allowed) and the plan's
    "Contact via" is it."""
    shortlist: dict[str, str] = {}
    for row in _section(texts["creators"], "Shortlist").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        # A listed contact the shortlist itself says the campaign does not use is explained.
        if len(cells) > 8 and cells[1].startswith("@") \
                and "not one of the campaign's channels" not in cells[-1]:
            shortlist[cells[1]] = cells[8].lower()
    outreach = {m.group(1): {h.lower() for h in re.findall(r"^### (.+)$", m.group(2), re.M)}
                for m in re.finditer(r"^## (@\S+).*?\n(.*?)(?=^## @|\Z)", texts["outreach"],
                                     re.M | re.S)}
    plan = {m.group(1): m.group(2).strip().lower() for m in re.finditer(
        r"^\| (@\S+) .*\|\s*([^|]+?)\s*\|\s*$", _section(texts["plan"], "Deliverables per creator"),
        re.M)}
    out = []
    for handle, channel in shortlist.items():
        if channel not in outreach.get(handle, {channel}) or plan.get(handle, channel) != channel:
            used = sorted(outreach.get(handle, []))
            out.append(f"{handle}: shortlist {channel}, outreach {used}, plan {plan.get(handle)}")
    return out


def campaign_feedback_case(case: Case) -> dict[str, Any]:
    from engine import service, views

    run_id = service.start_run(kind="campaign", actor="eval (marketer)",
                               input=_campaign_input(case))
    _drive(run_id)
    _approve(run_id)
    first = _approve(run_id)  # outreach
    service.request_revision(run_id=run_id, actor="eval (marketer)", comment=case["comment"],
                             expected_version=first.version)
    _drive(run_id)
    d = views.get_run(run_id)
    out = _judge_comment(case, first.current.content, d)  # type: ignore[union-attr]
    if "expect_fee" in case and out["right"]:
        plan = _approve(run_id).current.content  # type: ignore[union-attr]
        fees = re.findall(r"\|\s*([\d,]+)\s*\|\s*[A-Za-z ]+\|\s*$", plan, re.M)
        if not fees or int(fees[0].replace(",", "")) != case["expect_fee"]:
            out["right"] = False
            out["why"] = ["the plan does not carry the fee the outreach offers"]
    return out


def evaluate(cases: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        "protocol": [protocol_case(c) for c in cases["protocol"]],
        "protocol_feedback": [protocol_feedback_case(c) for c in cases["protocol_feedback"]],
        "campaign": [campaign_case(c) for c in cases["campaign"]],
        "campaign_feedback": [campaign_feedback_case(c) for c in cases["campaign_feedback"]],
    }


def report(results: dict[str, list[dict[str, Any]]], errors: bool) -> None:
    for part, rows in results.items():
        right = sum(r["right"] for r in rows)
        line = f"{part:18} drafter right {right}/{len(rows)}"
        if part in ("protocol", "campaign"):
            alarms = sum(bool(r["flagged"]) and r["right"] for r in rows)
            missed = sum(not r["flagged"] and not r["right"] for r in rows)
            line += (f"; flagged {sum(bool(r['flagged']) for r in rows)} "
                     f"(false alarms {alarms}, misses {missed})")
        else:
            flag_right = sum(r["flag_right"] for r in rows)
            false_progress = sum(r["false_progress"] for r in rows)
            line += (f"; not-addressed flag right {flag_right}/{len(rows)}"
                     f"; 'thresholds met' while not answered {false_progress}")
        print(line)
        if errors:
            for r in rows:
                if not r["right"] or r["flagged"]:
                    print(f"  {'ok ' if r['right'] else 'BAD'} {r['id'][:90]} [{r['halt']}]")
                    for w in r["why"]:
                        print(f"        drafter: {w}")
                    for f in r["flagged"]:
                        print(f"        flag: {f}")


def main(argv: list[str]) -> int:
    path = Path(next((a for a in argv if not a.startswith("--")), DEFAULT))
    cases = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="draftroom-fresh-") as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/fresh.db"
        report(evaluate(cases), "--errors" in argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
