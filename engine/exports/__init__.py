"""Exports of a run for people: Markdown, JSON and PDF for protocols; Markdown, CSV and a PDF
of the plan for campaigns. Each pipeline names its exports (its `exports` hook)."""
