"""Exports of a run for people. formats.py dispatches a format to the run's pipeline (its
`exports` hook, listed in hooks.py); markdown.py and pdf.py render protocols, campaign.py
campaigns (the plan with its messages, the messages as CSV)."""
