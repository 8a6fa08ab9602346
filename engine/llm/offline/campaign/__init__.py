"""Offline (deterministic) agents for the campaign pipeline."""
