"""Join-aware table retriever: `Retriever.open(index_dir).search(question)`; see README "Python API"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["RankedTable", "Retriever", "SearchResult", "__version__"]

if TYPE_CHECKING:
    from .api import RankedTable, Retriever, SearchResult


def __getattr__(name: str) -> Any:
    """The API on first use, so `python -m retriever` can explain a missing dependency instead of failing here."""
    if name in ("RankedTable", "Retriever", "SearchResult"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'retriever' has no attribute {name!r}")
