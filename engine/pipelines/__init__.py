"""Pipelines as data: stages, agents, thresholds. The loop lives in engine/loop/."""
