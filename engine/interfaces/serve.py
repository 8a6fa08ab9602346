"""`make run` (`python -m engine serve`): the app and a worker process together, so work
starts with the server, not with the first browser session, and stops with it.

The app serves on 127.0.0.1. Another address (DRAFTROOM_SERVER_ADDRESS) exposes the review
desk to the network, so it needs sign-in: Streamlit's OIDC `[auth]` in secrets.toml. Without
it the launcher refuses to start and says what to configure."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

from engine.config import child_environment, settings
from engine.signin import auth_problem  # the one definition of "sign-in configured"

APP = Path(__file__).resolve().parents[2] / "app.py"
GRACE_SECONDS = 10.0
"""How long the app gets to stop; the worker gets its own grace (engine.loop.worker) and this."""


def refusal(address: str, cwd: Path | None = None) -> str | None:
    """Why the app must not serve on this address; None when it may."""
    if address in ("127.0.0.1", "localhost", "::1"):
        return None
    problem = auth_problem(cwd)
    if problem is None:
        return None
    return (f"Refusing to serve on {address}: anyone who can reach it could open the review "
            f"desk and approve a protocol, and sign-in is not configured ({problem}).\n"
            "Configure Streamlit's OIDC sign-in in .streamlit/secrets.toml:\n"
            "  [auth]\n  redirect_uri = \"https://HOST/oauth2callback\"\n"
            "  cookie_secret = \"a long random string\"\n  client_id = \"...\"\n"
            "  client_secret = \"...\"\n"
            "  server_metadata_url = \"https://ISSUER/.well-known/openid-configuration\"\n"
            "or unset DRAFTROOM_SERVER_ADDRESS to serve on 127.0.0.1 only.")


def _commands(port: int, address: str) -> list[list[str]]:
    py = sys.executable
    return [
        [py, "-m", "engine", "worker"],
        [py, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
         "--server.address", address, "--server.headless", "true",
         "--browser.gatherUsageStats", "false",
         # as .streamlit/config.toml says (whatever the working directory): no forced full
         # garbage collection after each rerun, which a streaming Run page does 5 times a second
         "--runner.postScriptGC", "false"],
    ]


def app_env(worker_pid: int) -> dict[str, str]:
    """The app's environment: it has a worker process beside it, so it starts none of its
    own (an in-app thread as well would be a second, smaller worker in the web server)."""
    return child_environment({"DRAFTROOM_SERVE_WORKER_PID": str(worker_pid)})


def serve(port: int) -> int:
    """Migrate, then run the worker and the app until either ends or this process is
    stopped (SIGINT, SIGTERM); then stop the other. Returns the exit code."""
    from db.migrate import migrate

    address = settings().server_address
    refused = refusal(address)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    migrate()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    worker_cmd, app_cmd = _commands(port, address)
    # The worker in a session of its own: Ctrl+C in the terminal reaches only this process,
    # which passes one SIGTERM on (a second signal would end the worker's steps at once).
    worker = subprocess.Popen(worker_cmd, start_new_session=True)
    procs = [worker, subprocess.Popen(app_cmd, env=app_env(worker.pid))]
    print(f"Draftroom on http://{address}:{port} with a worker (pid {procs[0].pid}); "
          "Ctrl+C stops both.", flush=True)
    try:
        while not stop.is_set() and all(p.poll() is None for p in procs):
            stop.wait(0.5)
    finally:
        _stop_all(procs)
    ended = [p.returncode for p in procs if p.returncode not in (None, 0, -signal.SIGTERM)]
    return 0 if stop.is_set() or not ended else int(ended[0])


def _stop_all(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each (the worker lets its runs finish their current step, then hands them back
    to the queue; past its own grace it hands them back unfinished), then SIGKILL stragglers."""
    from engine.loop.worker import GRACE_SECONDS as WORKER_GRACE

    for p in procs:
        if p.poll() is None:
            p.terminate()
    for i, p in enumerate(procs):
        try:
            p.wait(timeout=GRACE_SECONDS + (WORKER_GRACE if i == 0 else 0))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
