"""`make run` starts the app and a worker together: queued runs are drafted with no browser
open, a run whose process died resumes once its lease expires, the app listens on loopback
only, and serving on another address without sign-in is refused, saying what to configure."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import service, views
from engine.interfaces.serve import auth_problem, refusal
from engine.loop.leases import claim_run

ROOT = Path(__file__).resolve().parent.parent
INTENT = {"intent": "Exam panic before finals", "audience": "university students"}
LEASE = "3"  # seconds: the dead process's lease runs out while the server starts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_run_command(port: int) -> list[str]:
    """The command `make run` runs (its last recipe line), as make prints it."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # Under `make test` this is a nested make: MAKEFLAGS/MAKELEVEL would make it print
    # "make[1]: Leaving directory" lines, so it runs as a top-level make would.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    out = subprocess.run(["make", "-n", "--no-print-directory", "run", f"PORT={port}",
                          f"PY={sys.executable}"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.strip().splitlines() if not line.startswith("make")]
    return shlex.split(lines[-1])


def listening(port: int) -> set[str]:
    """Local addresses with a socket in LISTEN state on this TCP port (from /proc/net)."""
    found = set()
    for name, width in (("tcp", 8), ("tcp6", 32)):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, hexport = local.split(":")
            if state == "0A" and int(hexport, 16) == port and len(addr) == width:
                found.add(socket.inet_ntop(socket.AF_INET if width == 8 else socket.AF_INET6,
                                           bytes.fromhex(addr)[::-1] if width == 8
                                           else _v6(addr)))
    return found


def _v6(addr: str) -> bytes:
    raw = bytes.fromhex(addr)  # four little-endian 32-bit words
    return b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))


def wait_for(check, what: str, limit: float = 180.0):  # type: ignore[no-untyped-def]
    """Poll until check() is truthy; a limit only so a broken server fails the test."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    pytest.fail(f"gave up waiting for {what}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """A database with a queued run and a run held by a dead process, then make run's
    command over it, with no browser."""
    from db.session import reset_engines

    url = f"sqlite:///{tmp_path_factory.mktemp('serve') / 'draftroom.db'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DATABASE_URL", url)
        mp.setenv("DRAFTROOM_LEASE_SECONDS", LEASE)
        reset_engines()
        queued = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        orphan = service.start_run(kind="protocol", input=INTENT, actor="dr. lee")
        assert claim_run(orphan, "worker-gone-4242")  # its process died holding the lease
        assert views.get_run(orphan).status == "running"
        port = free_port()
        env = {**os.environ, "DATABASE_URL": url, "DRAFTROOM_LEASE_SECONDS": LEASE}
        proc = subprocess.Popen(make_run_command(port), cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            yield {"port": port, "queued": queued, "orphan": orphan, "proc": proc}
        finally:
            proc.terminate()  # the launcher stops the app and the worker with it
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
            reset_engines()


def test_queued_and_orphaned_runs_reach_review_with_no_browser(
        server: dict[str, object]) -> None:
    def statuses() -> dict[int, str] | None:
        now = {rid: views.get_run(rid).status for rid in (server["queued"], server["orphan"])}  # type: ignore[misc]
        return now if all(s == "awaiting_review" for s in now.values()) else None

    done = wait_for(statuses, "both runs to reach review")
    assert set(done.values()) == {"awaiting_review"}
    orphan = views.get_run(server["orphan"])  # type: ignore[arg-type]
    assert orphan.current is not None and orphan.lease_owner != "worker-gone-4242"


def test_the_app_listens_on_loopback_only_and_stops_with_its_worker(
        server: dict[str, object]) -> None:
    port = int(server["port"])  # type: ignore[call-overload]

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return True
        except OSError:
            return False

    wait_for(healthy, "the app to answer")
    assert listening(port) == {"127.0.0.1"}


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is `pid`, with their command lines (from /proc)."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                child = int(stat.parent.name)
                out[child] = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    return out


def test_the_app_runs_no_worker_of_its_own_beside_the_worker_process(
        server: dict[str, object]) -> None:
    """The app `make run` starts is told the worker process's pid, so it starts no in-app
    worker thread (ui/worker.py): one worker, not two."""
    proc = server["proc"]
    kids = wait_for(lambda: _children(proc.pid) if len(_children(proc.pid)) == 2 else None,  # type: ignore[attr-defined]
                    "the worker and the app to start")
    worker = next(pid for pid, cmd in kids.items() if "engine worker" in cmd)
    app = next(pid for pid, cmd in kids.items() if "streamlit" in cmd)
    raw = (Path("/proc") / str(app) / "environ").read_bytes().decode().split("\0")
    env = dict(item.split("=", 1) for item in raw if "=" in item)
    assert env.get("DRAFTROOM_SERVE_WORKER_PID") == str(worker)


def test_another_address_without_sign_in_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "DRAFTROOM_SERVER_ADDRESS": "0.0.0.0", "HOME": str(tmp_path),
           "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"}
    port = free_port()
    done = subprocess.run([sys.executable, "-m", "engine", "serve", "--port", str(port)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Refusing to serve on 0.0.0.0" in done.stderr
    assert "[auth]" in done.stderr and "server_metadata_url" in done.stderr
    assert "DRAFTROOM_SERVER_ADDRESS" in done.stderr
    assert listening(port) == set() and not (tmp_path / "x.db").exists()  # nothing started


def test_sign_in_is_configured_only_with_every_key(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir()
    assert "no [auth] section" in (auth_problem(tmp_path) or "")
    secrets.write_text('[auth]\nredirect_uri = "https://desk.example/oauth2callback"\n'
                       'cookie_secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t"\n')
    assert "client_id" in (auth_problem(tmp_path) or "")
    secrets.write_text(secrets.read_text() + '[auth.clinic]\nclient_id = "desk"\n'
                       'client_secret = "x"\nserver_metadata_url = '
                       '"https://id.example/.well-known/openid-configuration"\n')
    assert auth_problem(tmp_path) is None
    assert refusal("0.0.0.0", tmp_path) is None and refusal("127.0.0.1", tmp_path) is None


def test_stopping_the_command_stops_the_app_and_the_worker(server: dict[str, object]) -> None:
    proc: subprocess.Popen[str] = server["proc"]  # type: ignore[assignment]
    kids_file = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    if not kids_file.exists():
        pytest.skip("no /proc children listing on this system")
    kids = [int(p) for p in kids_file.read_text().split()]
    assert len(kids) == 2  # the worker and the app
    proc.terminate()
    assert proc.wait(timeout=60) == 0
    for pid in kids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    out = proc.stdout.read() if proc.stdout else ""
    assert "with a worker" in out and "stopped after" in out  # the worker said goodbye

