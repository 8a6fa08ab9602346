"""Benchmarks behind `make bench` (`python -m bench`): engine overhead per step, Draftroom next
to LangGraph on the same offline agents, concurrent critics, 1,000-run throughput and worker
memory. They print figures; nothing here is a test, and no test asserts a timing."""
