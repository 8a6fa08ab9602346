"""The offline backend (backend.py) and its deterministic agents, one package per pipeline:
text generation from templates, kept apart from the pipelines' definitions."""
