"""Demo data, outside the runtime package: `python -m engine seed-demo` fills a database with
runs the current pipelines could have produced (demo/seed.py, demo/generator.py), and
demo/invariants.py checks that a database holds to what the engine enforces."""
