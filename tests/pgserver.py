"""A throwaway PostgreSQL server for tests: initdb + pg_ctl on a temp folder, a free loopback port.

initdb refuses to run as root, so as root the server runs as the `postgres` user in a folder it owns.
`start` raises Unavailable with the reason when no server can be had, and the tests skip with it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote


class Unavailable(Exception):
    """No PostgreSQL server can be started here; the message says why."""


def find_bin_dir() -> Path | None:
    """Where initdb and pg_ctl live: on PATH, beside pg_ctl, or Debian's versioned folder (newest)."""
    for name in ("initdb", "pg_ctl"):
        found = shutil.which(name)
        if found:
            d = Path(found).resolve().parent
            if (d / "initdb").exists() and (d / "pg_ctl").exists():
                return d
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    root: Path
    port: int
    password: str
    bin_dir: Path
    as_user: list[str]

    def url(self, database: str, password: str | None = None, driver: str = "postgresql") -> str:
        pw = quote(self.password if password is None else password, safe="")
        return f"{driver}://postgres:{pw}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "fast",
                        "-w", "stop"], capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def start(password: str) -> PgServer:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise Unavailable("PostgreSQL binaries (initdb, pg_ctl) not found; .ci/run installs them")
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="retriever-pg-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            shutil.chown(root, user="postgres", group="postgres")
        except (LookupError, OSError) as e:
            shutil.rmtree(root, ignore_errors=True)
            raise Unavailable(f"running as root and cannot hand a folder to user postgres ({e})") from None
        if runuser is None:
            shutil.rmtree(root, ignore_errors=True)
            raise Unavailable("running as root and runuser is missing, so initdb cannot run as postgres")
        as_user = [runuser, "-u", "postgres", "--"]
    pwfile = root / "pw"
    pwfile.write_text(password + "\n", encoding="utf-8")
    if as_user:
        shutil.chown(pwfile, user="postgres", group="postgres")
    port = _free_port()
    steps = [
        [str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", "postgres", "--pwfile", str(pwfile),
         "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync"],
        [str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-l", str(root / "log"), "-w", "-t", "60", "-o",
         f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
    ]
    server = PgServer(root, port, password, bin_dir, as_user)
    for cmd in steps:
        res = subprocess.run([*as_user, *cmd], capture_output=True, text=True, timeout=120, check=False)
        if res.returncode != 0:
            log = (root / "log").read_text(errors="replace")[-500:] if (root / "log").exists() else ""
            server.stop()
            raise Unavailable(f"{Path(cmd[0]).name} failed: {(res.stderr or res.stdout).strip()[-500:]} {log}")
    return server
