"""Test support that the test suite and the benchmarks both import (bench never imports from
tests/): the fake OpenAI-compatible server, a throwaway PostgreSQL server, the app server for
browser runs, and the protocol team the fake server can play."""
