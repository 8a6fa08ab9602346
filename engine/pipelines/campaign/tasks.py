"""What a real model is told for a campaign task: the brand profile, the campaign, the approved
earlier stages and the notes, rendered from a DraftTask or a ReviewTask."""

from __future__ import annotations

import json
from typing import Any

from engine.memory.access import CONTEXT_KEY, render_block
from engine.pipelines.base import DraftTask, ReviewTask


def brand_block(run_input: dict[str, Any], context: dict[str, Any]) -> str:
    brand = context.get("brand") or {"name": run_input.get("brand_name")}
    keep = ("name", "website", "location", "service_type", "voice", "audience", "products",
            "avoid_words", "avoid_claims")
    return json.dumps({k: brand.get(k) for k in keep if k in brand}, ensure_ascii=False)


def campaign_block(i: dict[str, Any]) -> str:
    return (f"Goal: {i.get('goal')}\nAudience: {i.get('audience')}\n"
            f"Budget (USD): {i.get('budget')}\nChannels: {', '.join(i.get('channels', []))}\n"
            f"Number of creators: {i.get('num_creators')}")


def render_draft_task(t: DraftTask) -> str:
    parts = [f"Stage: {t.stage}", "Brand profile: " + brand_block(t.input, t.context),
             campaign_block(t.input)]
    memory = render_block(t.context.get(CONTEXT_KEY))  # team (issue 18): shared + its own
    if memory:
        parts.append(memory)
    if t.context.get("brief"):
        parts.append("Approved brief:\n" + t.context["brief"])
    if t.context.get("candidates"):
        parts.append("Candidate creators (ranked):\n" + json.dumps(
            t.context["candidates"], ensure_ascii=False))
    if t.context.get("shortlist"):
        parts.append("Approved shortlist:\n" + json.dumps(t.context["shortlist"],
                                                          ensure_ascii=False))
    if t.context.get("outreach"):
        parts.append("Approved outreach messages:\n" + t.context["outreach"])
    if t.previous:
        parts.append("Your previous draft:\n" + t.previous)
    if t.notes:
        parts.append("Notes for you:\n" + "\n".join(f"- [{n.priority}] {n.text}" for n in t.notes))
    feedback = t.context["feedback"] if "feedback" in t.context else t.feedback
    if feedback:
        parts.append("Human feedback on this stage:\n" + "\n".join(f"- {f}" for f in feedback))
    return "\n\n".join(parts)


def render_review_task(t: ReviewTask) -> str:
    flags = json.dumps([f.model_dump(include={"check", "category", "text"}) for f in t.flags])
    memory = render_block(t.context.get(CONTEXT_KEY))  # team (issue 18): the lead's memory
    return (f"Stage: {t.stage}\nBrand profile: {brand_block(t.input, t.context)}\n"
            f"{campaign_block(t.input)}\n\n" + (f"{memory}\n\n" if memory else "")
            + f"Deterministic compliance findings: {flags}\n\n<draft>\n{t.content}\n</draft>")
