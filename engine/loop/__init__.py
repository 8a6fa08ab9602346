"""The supervisor loop, as a package (import from the modules themselves):

- supervisor.py  Supervisor: claims, drives and commits a run's steps (begin, commit, stop)
- nodes.py       the node bodies: what the drafter is given, the draft and review nodes
- apply.py       the writes that apply a step's outputs (draft, review, decision, advance)
- critics.py     the critics' thread pool
- steps.py       the step types: StepPlan, ReviewOutcome, ScoreOut, StepEvent, LeaseLost
- decide.py      the decision as plain functions: bound scores, thresholds, gate, board
- agents.py      running one agent: prompt, budget check, the call and its record
- sql.py         the loop's SQL statements and its transaction
- leases.py      which worker runs which run: claims, heartbeats, release
- worker.py      Worker: claims queued runs and drives them (`python -m engine worker`, the
                 app's in-process thread)
"""
