"""Many workers, SIGKILLs and restarts: four `python -m engine worker` processes drive 200 runs
against the fake OpenAI server while the test kills a worker that holds a lease every fraction
of a second and starts a new one. Every run must reach review, and the Step, Draft and LLMCall
rows must prove that no run was executed by two workers at once and nothing was lost or done
twice. Once on SQLite, once on PostgreSQL."""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from db.migrate import migrate
from db.models import Draft, LLMCall, Run, Score, Step
from db.session import session_scope
from engine import service
from engine.run_state import RunStatus
from testkit.fake_openai import FakeOpenAI
from tests.utils.team import SECOND_DRAFT, ProtocolTeam

ROOT = Path(__file__).resolve().parent.parent
RUNS = 200
WORKERS = 4
KILLS = 20
LEASE_SECONDS = 2
DEADLINE_SECONDS = 300


def worker_env(url: str, base_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": url,
        "DRAFTROOM_BACKEND": "openai",
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "sk-fake-load-test-key-0000",
        "DRAFTROOM_LEASE_SECONDS": str(LEASE_SECONDS),
        "DRAFTROOM_LLM_TIMEOUT": "10",
        "PYTHONUNBUFFERED": "1",
    })
    return env


class Pool:
    """Worker processes, each logging to its own file; killed ones are replaced."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs = env, logs
        self.procs: list[subprocess.Popen[bytes]] = []
        self.started = 0

    def spawn(self) -> subprocess.Popen[bytes]:
        self.started += 1
        log = open(self.logs / f"worker-{self.started}.log", "wb")  # noqa: SIM115
        p = subprocess.Popen([sys.executable, "-m", "engine", "worker", "--poll", "0.1"],
                             cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def alive(self) -> list[subprocess.Popen[bytes]]:
        return [p for p in self.procs if p.poll() is None]

    def stop(self) -> list[int | None]:
        """SIGTERM the workers still alive; their exit codes (a clean stop is 0). Workers
        killed earlier are not among them, whenever they were started."""
        live = self.alive()
        for p in live:
            p.send_signal(signal.SIGTERM)
        codes = []
        for p in live:
            try:
                codes.append(p.wait(timeout=20))
            except subprocess.TimeoutExpired:
                p.kill()
                codes.append(None)
        return codes


def _cpu_seconds() -> float:
    """CPU used by this process (the fake server, the test) and its finished children (the
    workers): wall time on a shared machine says little on its own."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _pid_of(worker_id: str) -> int:
    return int(worker_id.rsplit("-", 2)[1])  # worker-<host>-<pid>-<hex>


def leased_pids() -> set[int]:
    with session_scope() as s:
        owners = s.exec(select(Run.lease_owner).where(Run.status == RunStatus.RUNNING,
                                                      Run.lease_owner.is_not(None))).all()  # type: ignore[union-attr]
    return {_pid_of(o) for o in owners if o}


def count_in_review(ids: list[int]) -> int:
    with session_scope() as s:
        return len(s.exec(select(Run.id).where(Run.id.in_(ids),  # type: ignore[union-attr]
                                               Run.status == RunStatus.REVIEW)).all())


def steps_done(ids: list[int]) -> int:
    with session_scope() as s:
        return len(s.exec(select(Step.id).where(Step.run_id.in_(ids),  # type: ignore[union-attr]
                                                Step.status == "done")).all())


def count_active(ids: list[int]) -> int:
    with session_scope() as s:
        return len(s.exec(select(Run.id).where(Run.id.in_(ids),  # type: ignore[union-attr]
                                               Run.status.in_(RunStatus.ACTIVE))).all())  # type: ignore[attr-defined]


def _overlap(a0, a1, b0, b1) -> bool:  # type: ignore[no-untyped-def]
    return a0 < b1 and b0 < a1


def check_invariants(ids: list[int]) -> dict[str, int]:
    """Assert what must hold after any number of crashes; return figures for the report."""
    with session_scope() as s:
        runs = {r.id: r for r in s.exec(select(Run).where(Run.id.in_(ids)))}  # type: ignore[union-attr]
        steps = s.exec(select(Step).where(Step.run_id.in_(ids))).all()  # type: ignore[union-attr]
        drafts = s.exec(select(Draft).where(Draft.run_id.in_(ids))).all()  # type: ignore[union-attr]
        calls = s.exec(select(LLMCall).where(LLMCall.run_id.in_(ids))).all()  # type: ignore[union-attr]
        scores = s.exec(select(Score).where(
            Score.draft_id.in_([d.id for d in drafts]))).all()  # type: ignore[union-attr]

    # Every run reached review, met its thresholds, holds no lease.
    bad = {i: (r.status, r.halt_reason, r.error) for i, r in runs.items()
           if r.status != RunStatus.REVIEW or r.halt_reason != "thresholds_met"}
    assert not bad, f"{len(bad)} run(s) did not reach review: {list(bad.items())[:5]}"
    assert len(runs) == len(ids)
    assert not [i for i, r in runs.items() if r.lease_owner or r.lease_expires]

    by_run: dict[int, list[Step]] = defaultdict(list)
    for st in steps:
        by_run[st.run_id].append(st)
        assert st.finished_at is not None, f"step {st.id} of run {st.run_id} never finished"
        assert st.status in ("done", "abandoned"), (st.id, st.status, st.error)

    # No two workers on one run at once: step intervals by different workers never overlap.
    for run_id, rs in by_run.items():
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                if a.worker != b.worker:
                    assert not _overlap(a.started_at, a.finished_at, b.started_at, b.finished_at), \
                        f"run {run_id}: step {a.seq} ({a.worker}) overlaps {b.seq} ({b.worker})"

    # Model calls: a worker stalled past its lease (CPU starvation, a pause) may finish the call
    # it was in while another worker has taken the run over. Such a call must belong to a step
    # that was abandoned, i.e. whose output was never committed; they are counted, not hidden.
    step_of = {st.id: st for st in steps}
    stale_calls = 0
    for c in calls:
        mine = step_of[c.step_id]
        end = c.started_at + timedelta(milliseconds=c.latency_ms)
        assert mine.started_at <= c.started_at
        if any(other.worker != mine.worker
               and _overlap(c.started_at, end, other.started_at, other.finished_at)
               for other in by_run[c.run_id or 0]):
            assert mine.status == "abandoned", \
                f"run {c.run_id}: a committed step of {mine.worker} overlapped another worker"
            stale_calls += 1

    # No step done twice: one done step per (run, stage, node, iteration).
    done = Counter((st.run_id, st.stage, st.node, st.iteration) for st in steps
                   if st.status == "done")
    twice = [k for k, n in done.items() if n > 1]
    assert not twice, f"steps done twice: {twice[:5]}"
    one = [("draft", 0), ("review", 1), ("decide", 1)]
    two = one + [("draft", 1), ("review", 2), ("decide", 2)]
    for run_id in ids:
        nodes = [(st.node, st.iteration) for st in sorted(by_run[run_id], key=lambda x: x.seq)
                 if st.status == "done"]
        assert nodes == (two if SECOND_DRAFT in runs[run_id].input["intent"] else one), \
            (run_id, nodes)

    # No draft lost or duplicated: versions 1..n, one per iteration, each made by one done step.
    drafts_by_run: dict[int, list[Draft]] = defaultdict(list)
    for d in drafts:
        drafts_by_run[d.run_id].append(d)
    made_by = Counter(st.draft_id for st in steps if st.node == "draft" and st.status == "done")
    for run_id in ids:
        ds = sorted(drafts_by_run[run_id], key=lambda d: d.version)
        n = 2 if SECOND_DRAFT in runs[run_id].input["intent"] else 1
        assert [d.version for d in ds] == list(range(1, n + 1)), (run_id, [d.version for d in ds])
        assert [d.iteration for d in ds] == list(range(1, n + 1))
        assert all(made_by[d.id] == 1 for d in ds)
        assert runs[run_id].current_draft_id == ds[-1].id
    per_draft = Counter(sc.draft_id for sc in scores)
    assert all(per_draft[d.id] == 3 for d in drafts), "every version has its three scores"

    abandoned = [st for st in steps if st.status == "abandoned"]
    wasted = sum(1 for c in calls if step_of[c.step_id].status == "abandoned")
    return {"runs": len(ids), "steps": len(steps), "steps_abandoned": len(abandoned),
            "runs_taken_over": len({st.run_id for st in abandoned}),
            "drafts": len(drafts), "llm_calls": len(calls), "calls_in_abandoned_steps": wasted,
            "calls_after_lease_lost": stale_calls,
            "workers_seen": len({st.worker for st in steps})}


@pytest.mark.slow
def test_four_workers_with_sigkills_lose_nothing_and_never_share_a_run(
    db_any: str, tmp_path: Path, artifacts: Path
) -> None:
    migrate(db_any)
    backend = "postgresql" if db_any.startswith("postgresql") else "sqlite"
    rng = random.Random(20261122)
    ids = [service.start_run(kind="protocol", actor="dr. lee",
                             input={"intent": f"Help a student with exam panic, case {i}"
                                              + (f" {SECOND_DRAFT}" if i % 4 == 0 else ""),
                                    "audience": "adult students"})
           for i in range(RUNS)]
    # Kills are spread over the work (at random numbers of finished steps), so each lands
    # while runs are in flight and every restarted worker gets to make progress.
    expected_steps = sum(6 if i % 4 == 0 else 3 for i in range(RUNS))
    kill_at = sorted(rng.sample(range(20, expected_steps * 4 // 5), KILLS))
    t0 = time.monotonic()
    cpu0 = _cpu_seconds()
    kills = 0
    with FakeOpenAI(latency=0.01, responder=ProtocolTeam()) as server:
        pool = Pool(worker_env(db_any, server.url), tmp_path)
        for _ in range(WORKERS):
            pool.spawn()
        while time.monotonic() - t0 < DEADLINE_SECONDS:
            time.sleep(0.1)
            if count_active(ids) == 0:
                break
            if kills >= KILLS or steps_done(ids) < kill_at[kills]:
                continue
            holding = [p for p in pool.alive() if p.pid in leased_pids()]
            if not holding:
                continue
            victim = rng.choice(holding)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            kills += 1
            pool.spawn()  # a restart, as a supervisor (systemd, k8s) would do
        elapsed = time.monotonic() - t0
        codes = pool.stop()
        requests = len(server.chat_requests)

    logs = "\n".join(p.read_text(errors="replace") for p in sorted(tmp_path.glob("worker-*.log")))
    in_review = count_in_review(ids)
    figures = {"backend": backend, "runs": RUNS, "in_review": in_review, "workers": WORKERS,
               "kills": kills, "processes_started": pool.started, "seconds": round(elapsed, 1),
               "http_requests": requests, "lease_seconds": LEASE_SECONDS, "exit_codes": codes,
               "cpu_seconds": round(_cpu_seconds() - cpu0, 1),
               "load_average": round(os.getloadavg()[0], 1)}
    with session_scope() as s:
        figures["step_statuses"] = dict(Counter(s.exec(select(Step.status).where(
            Step.run_id.in_(ids))).all()))  # type: ignore[union-attr]
        figures["run_statuses"] = dict(Counter(s.exec(select(Run.status).where(
            Run.id.in_(ids))).all()))  # type: ignore[union-attr]
    figures["log_errors"] = sum(1 for line in logs.splitlines() if "Traceback" in line)
    figures["leases_lost_to_stalls"] = logs.count("lease on run")
    print(f"\nload test ({backend}): {json.dumps(figures)}")
    assert "run failed unexpectedly" not in logs, logs[-3000:]
    assert in_review == RUNS, f"only {in_review}/{RUNS} runs reached review in {elapsed:.0f}s"
    figures.update(check_invariants(ids), lost=0)
    (artifacts / f"load_{backend}.json").write_text(json.dumps(figures, indent=2))
    print(f"load test ({backend}) invariants hold: {json.dumps(figures)}")
    # A clean stop (SIGTERM) gives every lease back and exits 0.
    assert len(codes) == WORKERS and all(c == 0 for c in codes), codes
    assert kills == KILLS, f"only {kills} kills: the test did not exercise crashes"
    assert figures["steps_abandoned"] >= 1, "no kill landed inside a step"
