"""Start-up check: is the running python3 the one this bundle's compiled wheels were installed for?

scripts/bundle.sh writes BUNDLE.txt beside this file. numpy, tokenizers and PyStemmer ship C extensions
for one CPython minor version, ABI and platform, so a different python3 would fail deep inside an import;
this turns that into one clear line. Standard library only, and cheap: no sysconfig or platform import.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

RECORD = "BUNDLE.txt"


def read_record(folder: Path) -> dict[str, str]:
    """The ``key: value`` lines of BUNDLE.txt (first occurrence wins), or {} when there is none."""
    try:
        text = (folder / RECORD).read_text(encoding="utf-8")
    except OSError:
        return {}
    record: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith("#"):
            record.setdefault(key.strip(), value.strip())
    return record


def _glibc() -> tuple[int, int] | None:
    """(major, minor) of the C library when it is glibc, else None."""
    try:
        name, _, version = os.confstr("CS_GNU_LIBC_VERSION").partition(" ")  # type: ignore[union-attr]
        major, minor = version.split(".")[:2]
        return (int(major), int(minor)) if name == "glibc" else None
    except (AttributeError, ValueError, OSError, TypeError):
        return None


def bundle_problem(folder: Path) -> str | None:
    """Why the bundle in ``folder`` cannot run on this interpreter, or None when it can (or nothing says)."""
    record = read_record(folder)
    if not record:
        return None
    v = sys.version_info
    here = {
        "python": f"{v.major}.{v.minor}",
        "implementation": sys.implementation.name,
        "platform": f"{sys.platform}-{os.uname().machine}" if hasattr(os, "uname") else sys.platform,
        "ext_suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
    }
    wrong = [f"{k} {record[k]} (this one: {here[k]})" for k in here if k in record and record[k] != here[k]]
    need = record.get("glibc_min", "none")
    libc = _glibc()
    if need != "none" and libc is not None:
        try:
            want = tuple(int(x) for x in need.split(".")[:2])
        except ValueError:
            want = (0, 0)
        if libc < want:
            wrong.append(f"glibc >= {need} (this one: {libc[0]}.{libc[1]})")
    if not wrong:
        return None
    return (f"this bundle was made for another python3: it needs {'; '.join(wrong)}. "
            f"Put a matching python3 first on PATH ({sys.executable or 'python3'} was found), "
            f"or rebuild the bundle with it: BUNDLE_PYTHON=/path/to/python3 make bundle")


def check_or_exit(folder: Path) -> None:
    """Exit with status 1 and one stderr line when :func:`bundle_problem` finds one."""
    problem = bundle_problem(folder)
    if problem:
        sys.stderr.write(f"retriever: {problem}\n")
        sys.exit(1)
