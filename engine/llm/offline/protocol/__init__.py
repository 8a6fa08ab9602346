"""Offline (deterministic) agents for the protocol pipeline."""
