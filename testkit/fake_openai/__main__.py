"""`python -m testkit.fake_openai --port 8089`: the fake server from a shell."""

from testkit.fake_openai.server import main

main()
