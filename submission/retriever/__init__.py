"""Join-aware table retriever: `Retriever.open(index_dir).search(question)`; see README "Python API"."""

from __future__ import annotations

__version__ = "0.1.0"

from .api import RankedTable, Retriever, SearchResult  # noqa: E402

__all__ = ["RankedTable", "Retriever", "SearchResult", "__version__"]
