"""A run carried by a team (issue 18; the Workforce hierarchy): an orchestrator hands each
stage to a lead, who delegates to the stage's worker and evaluates its result before anything
reaches a person. Built on the loop, not beside it: the worker is the stage's drafter, the
lead's evaluation is the stage's critic step and the supervisor's decision on it.

- models.py  the team as data (TeamSpec) and its typed messages' payloads
- record.py  the loop hooks: team messages and memory written in the step's own transaction
- read.py    the Team tab's read model: the tree, the threads per stage, the artifacts, the
             calls under the agent that made them
"""
