"""The package's data flow is one way: no module imports from a later stage, __init__ files only re-export.

Layers, lowest first: errors and config (read by all) -> embedders -> index -> backends (where stage 1
runs) -> query -> answer -> the entry points and their wiring at the top.
A module may import its own layer and those below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "submission" / "retriever"
LAYER = {"errors": 0, "config": 0, "embedders": 1, "index": 2, "backends": 3, "query": 4, "answer": 5,
         "runtime": 6, "api": 6, "cli": 6, "server": 6, "__main__": 6}
MAX_LINES = 300


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PKG).with_suffix("").parts)


def _layer(module: str, importer: bool = False) -> int:
    """The package root is the top as an importer (it re-exports the API, lazily) and a leaf as a target
    (what lower layers take from it is __version__)."""
    if module.split(".")[0] == "__init__":
        return 6 if importer else 0
    return LAYER[module.split(".")[0]]


def _imports(path: Path) -> list[str]:
    """Package modules `path` imports, as dotted names under retriever."""
    here = _module(path).split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "retriever":
                parts = node.module.split(".")[1:]
            else:
                continue
            out.append(".".join(parts) or "__init__")
            out += [".".join([*parts, a.name]) for a in node.names if parts]
    return out


def test_no_upward_imports() -> None:
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        mine = _layer(_module(path), importer=True)
        for target in _imports(path):
            if _layer(target) > mine:
                bad.append(f"{_module(path)} -> {target}")
    assert not bad, bad


def test_the_checker_sees_relative_imports() -> None:
    assert "query.channels" in _imports(PKG / "query" / "planner.py")
    assert "index.registry" in _imports(PKG / "query" / "planner.py")
    assert "errors" in _imports(PKG / "index" / "store.py")


def test_init_files_only_re_export() -> None:
    for path in PKG.rglob("__init__.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            assert isinstance(node, (ast.Expr, ast.ImportFrom, ast.Import, ast.Assign, ast.AnnAssign, ast.If,
                                     ast.FunctionDef)), f"{path}: {type(node).__name__}"
            if isinstance(node, ast.FunctionDef):  # the lazy re-export of the API
                assert node.name == "__getattr__", path


def test_modules_stay_small() -> None:
    sizes = {_module(p): len(p.read_text(encoding="utf-8").splitlines()) for p in PKG.rglob("*.py")}
    big = {m: n for m, n in sizes.items() if n > MAX_LINES}
    assert not big, big
