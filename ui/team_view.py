"""The Run page's Team tab (issue 18): who delegated to whom, the message thread of each stage,
each worker's attempts as artifacts to open and diff, and the model calls under the member
that made them. Draws engine/team/read.py's read model; no queries here."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from engine import diff
from engine.team.models import (
    PERSON,
    EvaluationPayload,
    FeedbackPayload,
    ResultPayload,
    TaskPayload,
    TeamMessageView,
)
from engine.team.read import TeamView, artifact_text, load_team, team_of
from engine.views import RunDetail
from ui.format import usd
from ui.markdown import demote_headings, escape_inline

KIND_BADGE = {"task": ":blue-badge[task]", "result": ":green-badge[result]",
              "evaluation": ":violet-badge[evaluation]", "feedback": ":orange-badge[feedback]"}
VERDICT_BADGE = {"PASS": ":green-badge[:material/check: PASS]",
                 "REVISE": ":red-badge[:material/undo: REVISE]"}


def has_team(detail: RunDetail) -> bool:
    return team_of(detail.kind) is not None


def _code(text: str) -> str:
    """A code span (Markdown escapes do not work inside one: backticks are dropped)."""
    return f"`{text.replace('`', '')}`"


def _who(view: TeamView, name: str) -> str:
    m = view.member(name)
    title = m.title if m else ("People" if name == PERSON else name)
    return f"**{escape_inline(title)}**"


def render_team(detail: RunDetail) -> None:
    view = load_team(detail.id)
    if view is None:
        st.caption("This run's pipeline works without a team.")
        return
    if not view.messages:
        st.caption("No messages yet: the orchestrator hands the first stage over when the "
                   "first step starts.")
        return
    render_tree(view)
    st.markdown("#### Messages by stage")
    render_thread(view, detail.stage)
    st.markdown("#### Artifacts")
    render_artifacts(view)
    st.markdown("#### Model calls by team member")
    render_calls(view)


# -- who delegated to whom --------------------------------------------------------------------


def _tree_lines(view: TeamView, tree: dict[str, dict], depth: int = 0) -> list[str]:  # type: ignore[type-arg]
    lines = []
    for name, kids in tree.items():
        m = view.member(name)
        calls = len(m.calls) if m else 0
        arts = [a for a in view.artifacts if a.agent == name]
        bits = [_code(name), f"{calls} model call{'s' if calls != 1 else ''}"]
        if arts:
            bits.append("artifacts: " + ", ".join(
                f"{escape_inline(a.key)} ({a.verdict or 'not evaluated'})" for a in arts))
        lines.append("    " * depth + f"- {_who(view, name)} · " + " · ".join(bits))
        lines += _tree_lines(view, kids, depth + 1)
    return lines


def _dot(view: TeamView) -> str:
    """The hierarchy as Graphviz DOT: an edge per delegation, labelled with its messages."""
    edges: dict[tuple[str, str], dict[str, int]] = {}
    for m in view.messages:
        if m.kind in ("task", "feedback") or m.recipient == PERSON:
            kinds = edges.setdefault((m.sender, m.recipient), {})
            kinds[m.kind] = kinds.get(m.kind, 0) + 1
    names = {n for e in edges for n in e}

    def node(n: str) -> str:
        m = view.member(n)
        title = (m.title if m else "People" if n == PERSON else n).replace('"', "'")
        shape = "oval" if n == PERSON else "box"
        return f'"{n}" [label="{title}\\n{n}", shape={shape}];'

    lines = ["digraph team {", "rankdir=TB;", 'node [fontname="sans-serif", fontsize=11];',
             'edge [fontname="sans-serif", fontsize=9];']
    lines += [node(n) for n in sorted(names)]
    for (a, b), kinds in edges.items():
        label = ", ".join(f"{k} ×{n}" for k, n in kinds.items())
        lines.append(f'"{a}" -> "{b}" [label="{label}"];')
    return "\n".join(lines + ["}"])


def render_tree(view: TeamView) -> None:
    st.markdown("#### Who delegated to whom")
    left, right = st.columns([3, 2])
    with left:
        st.markdown("\n".join(_tree_lines(view, view.tree("orchestrator"))))
        st.caption("The lead evaluates through the Evaluator: its model calls are the lead's. "
                   "Nothing reaches people before the lead has evaluated it.")
    with right:
        st.graphviz_chart(_dot(view), width="stretch")


# -- the thread of a stage --------------------------------------------------------------------


def _payload_lines(m: TeamMessageView) -> list[str]:
    p = m.payload
    out: list[str] = []
    if isinstance(p, TaskPayload):
        out.append(escape_inline(p.summary))
        if p.instructions:
            out.append(f"*{escape_inline(p.instructions)}*")
        if p.inputs:
            out.append("Given: " + ", ".join(escape_inline(i) for i in p.inputs))
    elif isinstance(p, ResultPayload):
        out.append(escape_inline(p.summary))
    elif isinstance(p, EvaluationPayload):
        scores = " ".join(_code(f"{k} {v:.2f}") for k, v in p.scores.items())
        out.append(f"{VERDICT_BADGE[p.verdict]} {scores}")
        if p.why:
            out.append(escape_inline(p.why))
    elif isinstance(p, FeedbackPayload):
        out.append(f"{escape_inline(p.summary)} (attempt {p.attempt} of {p.max_attempts})")
        out += [f"- from people: {escape_inline(f)}" for f in p.from_people]
    notes = getattr(p, "notes", None) or []
    out += [f"- {escape_inline(n)}" for n in notes]
    return out


def render_message(view: TeamView, m: TeamMessageView) -> None:
    with st.container(border=True):
        head = (f"{KIND_BADGE[m.kind]} {_who(view, m.sender)} → {_who(view, m.recipient)}"
                f" · attempt {m.iteration} · {m.at:%H:%M:%S} UTC")
        if m.artifact:
            head += f" · :gray-badge[{escape_inline(m.artifact)}]"
        st.markdown(head)
        st.markdown("\n\n".join(_payload_lines(m)))


def render_thread(view: TeamView, current: str) -> None:
    stages = view.stages
    pick = st.segmented_control("Stage", stages, default=current if current in stages
                                else stages[-1], key=f"team_stage_{view.run_id}")
    stage = pick or stages[-1]
    thread = view.thread(stage)
    back = sum(1 for m in thread if m.kind == "feedback" and m.sender != "orchestrator")
    st.caption(f"{len(thread)} messages in the {stage} stage"
               + (f"; the lead sent the work back {back} time{'s' if back != 1 else ''}"
                  if back else ""))
    for m in thread:
        render_message(view, m)


# -- artifacts ----------------------------------------------------------------------------------


def render_artifacts(view: TeamView) -> None:
    arts = view.artifacts
    if not arts:
        st.caption("No artifact yet.")
        return
    keys = [a.key for a in arts]
    label = {a.key: f"{a.key} · {a.stage} · v{a.version} · {a.verdict or 'not evaluated'}"
             for a in arts}
    c1, c2 = st.columns(2)
    key = c1.selectbox("Artifact", keys, index=len(keys) - 1, format_func=label.get,
                       key=f"team_art_{view.run_id}")
    # By default, the same worker's attempt before this one.
    same_agent = [k for k in keys[:keys.index(key)]
                  if view.artifact(k).agent == view.artifact(key).agent]
    other = c2.selectbox("Compare with", [None, *[k for k in keys if k != key]],
                         index=1 + [k for k in keys if k != key].index(same_agent[-1])
                         if same_agent else 0,
                         format_func=lambda k: "nothing" if k is None else label[k],
                         key=f"team_cmp_{view.run_id}_{key}")
    art = view.artifact(key)
    text = artifact_text(art.draft_id)
    if other is not None:
        old = view.artifact(other)
        changes = diff.unified(artifact_text(old.draft_id), text, from_label=old.key,
                               to_label=art.key)
        if changes:
            with st.container(height=420 if changes.count("\n") > 24 else "content"):
                st.code(changes, language="diff", wrap_lines=True)
        else:
            st.info(f"{old.key} and {art.key} have the same text.")
    with st.expander(f"{art.key} (run version v{art.version})", expanded=other is None):
        st.markdown(demote_headings(text), anchors=False)


# -- model calls under the member that made them ------------------------------------------------


def calls_figure(view: TeamView) -> go.Figure:
    """A timeline with a row per team member, labelled with whom it reports to ("Marketing
    Lead › Brief writer"), and a bar per model call; a member that calls no model (the
    orchestrator decides) keeps its row."""
    fig = go.Figure()
    rows: list[str] = []
    first = min((c.started_at for m in view.members for c in m.calls), default=None)

    def walk(tree: dict[str, dict], parent: str | None) -> None:  # type: ignore[type-arg]
        for name, kids in tree.items():
            m = view.member(name)
            title = m.title if m else name
            label = f"{parent} › {title}" if parent else title
            rows.append(label)
            for c in m.calls if m else []:
                tokens = c.prompt_tokens + c.completion_tokens
                fig.add_trace(go.Bar(
                    y=[label], x=[max(c.latency_ms, 50)], base=[c.started_at.isoformat()],
                    orientation="h", name=c.agent, showlegend=False,
                    marker_color="#7c3aed" if c.agent == "evaluator" else "#2563eb",
                    customdata=[[c.id]],
                    hovertemplate=(f"call {c.id} · {c.agent} · {c.stage}<br>"
                                   f"{c.latency_ms:.0f} ms · {tokens} tokens · "
                                   f"{usd(c.cost_usd)}<extra></extra>")))
            if not (m and m.calls) and first is not None:
                fig.add_trace(go.Scatter(
                    y=[label], x=[first.isoformat()], mode="markers", showlegend=False,
                    marker={"opacity": 0}, hovertemplate=f"{title}: no model calls<extra></extra>"))
            walk(kids, title)

    walk(view.tree("orchestrator"), None)
    fig.update_layout(barmode="overlay", height=80 + 40 * len(rows),
                      margin={"l": 10, "r": 10, "t": 10, "b": 30},
                      yaxis={"autorange": "reversed", "type": "category",
                             "categoryorder": "array", "categoryarray": rows},
                      xaxis={"type": "date", "title": None})
    return fig


def render_calls(view: TeamView) -> None:
    calls = [c for m in view.members for c in m.calls]
    if not calls:
        st.caption("No model calls yet.")
        return
    st.plotly_chart(calls_figure(view), key=f"team_calls_{view.run_id}",
                    config={"displayModeBar": False})
    st.caption("Each row is a member of the team, under whom it reports to; each bar one of "
               "its model calls (Traces has each call's request and response).")


def render_team_calls(run_id: int) -> None:
    """For the Traces page: the run's calls nested under the team member that made them."""
    view = load_team(run_id)
    if view is None or not any(m.calls for m in view.members):
        return
    with st.expander("Calls by team member (orchestrator › lead › workers)"):
        render_calls(view)


__all__ = ["calls_figure", "has_team", "render_team", "render_team_calls"]
