"""A throwaway PostgreSQL server for the test session: initdb into a temp dir, start on a free
localhost port (socket in the temp dir too), hand out fresh databases, stop at the end.

PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user (or
`nobody`), owning only its temp dir. Binaries: $PG_BIN, then `pg_config --bindir`, then the
newest /usr/lib/postgresql/*/bin (Debian's layout; `make system-deps` installs it)."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SUPERUSER = "draftroom"


def find_bin_dir() -> Path | None:
    """The directory holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    candidates: list[str] = []
    if os.environ.get("PG_BIN"):
        candidates.append(os.environ["PG_BIN"])
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            candidates.append(
                subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                               timeout=10).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass

    def version(path: str) -> float:
        try:
            return float(Path(path).parent.name)
        except ValueError:
            return 0.0

    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file():
            return Path(c)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> pwd.struct_passwd | None:
    """The unprivileged account to run the server as when we are root, else None."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and there is no 'postgres' or 'nobody' user to run "
                       "PostgreSQL as")


class PgServer:
    """One PostgreSQL cluster; `create_database()` gives each test its own database."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.user = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="draftroom-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self._names = itertools.count(1)

    # -- lifecycle --

    def _cmd(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        cmd = [str(a) for a in args]
        if self.user is not None:
            # runuser keeps the environment small and needs no password; `su` is the fallback.
            runuser = shutil.which("runuser")
            cmd = ([runuser, "-u", self.user.pw_name, "--", *cmd] if runuser
                   else ["su", self.user.pw_name, "-s", "/bin/sh", "-c", shlex.join(cmd)])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=self.root)

    def start(self) -> PgServer:
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        r = self._cmd(self.bin_dir / "initdb", "-D", self.data, "-U", SUPERUSER, "-A", "trust",
                      "-E", "UTF8", "--no-locale", "--no-sync")
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")
        last = ""
        for _ in range(5):  # a free port can be taken between the probe and the bind
            self.port = _free_port()
            # fsync off: a test server never needs to survive a power cut, and it is 10x faster.
            opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                    "-c max_connections=300 -c shared_buffers=64MB")
            r = self._cmd(self.bin_dir / "pg_ctl", "-D", self.data, "-l", self.log, "-o", opts,
                          "-w", "-t", "60", "start")
            if r.returncode == 0:
                return self
            last = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else r.stderr
        raise RuntimeError(f"PostgreSQL did not start: {last}")

    def restart(self) -> None:
        """Stop (fast: connections are cut) and start again on the same port."""
        r = self._cmd(self.bin_dir / "pg_ctl", "-D", self.data, "-l", self.log, "-m", "fast",
                      "-w", "-t", "60", "restart")
        if r.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not restart: {r.stderr.strip()}")

    def stop(self) -> None:
        if self.data.exists():
            self._cmd(self.bin_dir / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop",
                      timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)

    # -- databases --

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER,
                             dbname="postgres", autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def create_database(self, *, template: str | None = None, prefix: str = "t") -> str:
        """A new, empty (or copied from `template`) database; returns its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        tpl = f" TEMPLATE {template}" if template else " TEMPLATE template0"
        self._admin(f'CREATE DATABASE "{name}"{tpl}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        for _ in range(3):
            try:
                self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                return
            except Exception:  # a connection still closing; try again shortly
                time.sleep(0.2)


def start_server() -> tuple[PgServer | None, str]:
    """A started server, or (None, why not) when PostgreSQL is not installed here."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        return None, ("PostgreSQL is not installed (no initdb in $PG_BIN, pg_config --bindir or "
                      "/usr/lib/postgresql/*/bin); run `make system-deps` as root")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed: pip install -e '.[dev]'"
    server = PgServer(bin_dir)
    try:
        return server.start(), ""
    except Exception:
        server.stop()
        raise
