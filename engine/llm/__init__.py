"""LLM backends behind one protocol (base.LLMBackend): offline and openai."""
