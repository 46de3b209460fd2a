"""The few named exceptions; entry points turn them into one stderr line."""

from __future__ import annotations


class RetrieverError(Exception):
    """Base class for errors the entry points report as one clear line."""


class CatalogError(RetrieverError):
    """The catalog cannot be read or is not a usable catalog."""


class BadIndexError(RetrieverError):
    """The index directory is missing, from another version, or corrupt."""


class EmbeddingError(RetrieverError):
    """An embedding backend failed; callers fall back to the remaining channels."""


class ConfigError(RetrieverError):
    """A setting from the environment or the command line is invalid."""


class EngineError(RetrieverError):
    """The stage-1 search engine (Milvus) is missing, unreachable or lacks the index's collections."""
