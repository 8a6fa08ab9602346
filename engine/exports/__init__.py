"""Exports of a run for people. formats.py dispatches a format to the run's pipeline (its
`exports` hook, listed in hooks.py); markdown.py and pdf.py render protocols, campaign.py
and plan_pdf.py campaigns (the plan with its messages, the messages as CSV, the plan as PDF)."""
