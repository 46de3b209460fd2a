"""One frozen settings object, read from the environment once in the entry points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import ConfigError

#: The fusion constant: how flat reciprocal rank fusion's 1/(k + rank) curve is (RETRIEVER_RRF_K overrides it).
RRF_K = 60
#: Jina models the product may call; anything else is refused before a request is made.
ALLOWED_DENSE_MODELS = (
    "jina-embeddings-v3",
    "jina-embeddings-v4",
    "jina-embeddings-v5-text-small",
    "jina-embeddings-v5-text-nano",
)
ALLOWED_MULTI_MODELS = ("jina-colbert-v2",)
#: Stage-1 backends (candidate generation); the join-aware planning is always local.
BACKENDS = ("in-process", "milvus")
#: What runs the local model's encoder layers: ONNX Runtime when it is installed ("auto"), or numpy.
ENCODERS = ("auto", "onnx", "numpy")



def _default_cache_dir() -> Path:
    """The repo's cache/ in a checkout (submission/ beside a pyproject.toml and the retriever link), else
    cache/ inside the submission folder running on its own. Decided from the package's real location, so
    it is the same whether the package was imported through the top-level link or through submission/."""
    submission = Path(__file__).resolve().parent.parent
    repo = submission.parent
    if (repo / "pyproject.toml").is_file() and (repo / "retriever" / "__init__.py").is_file():
        return repo / "cache"
    return submission / "cache"


DEFAULT_CACHE_DIR = _default_cache_dir()
#: The users' words for schema words, learned from hand-rewritten training questions (scripts/usage_words.py).
DEFAULT_USAGE_WORDS = Path(__file__).resolve().parent / "index" / "usage_words.json"


@dataclass(frozen=True)
class Settings:
    jina_api_key: str | None = None
    jina_api_base: str = "https://api.jina.ai"
    jina_dense_model: str = "jina-embeddings-v3"
    jina_dense_dimensions: int = 1024
    jina_multi_model: str = "jina-colbert-v2"
    jina_multi_dimensions: int = 128
    #: Per-request HTTP timeout, seconds.
    jina_timeout_s: float = 2.5
    #: Total API time one question may spend (all requests and retries), seconds.
    query_api_budget_s: float = 3.0
    #: Build time per embedding channel (API ones: retries included). When it is spent the channel keeps
    #: what it has embedded (tables and groups first) and marks the rest; nothing is decided earlier from a
    #: projection. Channels run one after another, and each may overrun by one chunk (local: 2-15 s; API:
    #: runtime.API_CHUNK_BUDGET_S, 30 s): 400 + 15 local + 2 x (320 + 30) API = 1,115 s in the worst case,
    #: leaving 85 s of the 1,200 s build limit for the lexical part (43 s at 100k tables). Without a key the
    #: local model keeps 400 s, not more: a 100k-table build stays under the 10-minute scale target.
    build_api_budget_s: float = 320.0
    build_local_budget_s: float = 400.0
    jina_batch_size: int = 64
    jina_max_retries: int = 3
    cache_dir: Path = DEFAULT_CACHE_DIR
    #: Use the local offline model (MiniLM) when it is installed.
    local_model: bool = True
    #: The local model's engine (ENCODERS): "onnx" without onnxruntime installed warns once and uses numpy.
    encoder: str = "auto"
    rrf_k: int = RRF_K
    #: Stage-1 backend a build writes to (search follows the index): "in-process" or "milvus".
    backend: str = "in-process"
    #: Milvus address at build (None: a Milvus Lite folder inside the index); at search it overrides the
    #: address the index recorded (a cluster served from another host). The token is never written anywhere.
    milvus_uri: str | None = None
    milvus_token: str | None = None
    #: Engine time one question may use (all its engine calls); past it, the rest is computed locally.
    engine_budget_s: float = 5.0
    #: The usage words a build relates to the catalog's schema words (RETRIEVER_USAGE_WORDS: a file, or "off").
    usage_words: Path | None = DEFAULT_USAGE_WORDS

    def __repr__(self) -> str:  # the key must never reach a log line
        key = "set" if self.jina_api_key else "unset"
        return (f"Settings(jina_api_key=<{key}>, jina_api_base={self.jina_api_base!r}, cache_dir={self.cache_dir!s}, "
                f"backend={self.backend!r}, milvus_token=<{'set' if self.milvus_token else 'unset'}>)")

    __str__ = __repr__

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Read settings from an environment mapping (entry points pass os.environ)."""
        s = cls()
        key = env.get("JINA_API_KEY", "").strip() or None
        s = replace(
            s,
            jina_api_key=key,
            jina_api_base=env.get("JINA_API_BASE", s.jina_api_base).rstrip("/") or s.jina_api_base,
            jina_dense_model=env.get("JINA_MODEL", s.jina_dense_model),
            jina_multi_model=env.get("JINA_COLBERT_MODEL", s.jina_multi_model),
            jina_dense_dimensions=_int(env, "JINA_DIMENSIONS", s.jina_dense_dimensions),
            jina_timeout_s=_float(env, "JINA_TIMEOUT_S", s.jina_timeout_s),
            query_api_budget_s=_float(env, "RETRIEVER_API_BUDGET_S", s.query_api_budget_s),
            build_local_budget_s=_float(env, "RETRIEVER_LOCAL_BUDGET_S", s.build_local_budget_s),
            cache_dir=Path(env["RETRIEVER_CACHE_DIR"]) if env.get("RETRIEVER_CACHE_DIR") else s.cache_dir,
            local_model=env.get("RETRIEVER_LOCAL_MODEL", "1") not in ("0", "false", "no", "off"),
            encoder=env.get("RETRIEVER_ENCODER", "").strip() or s.encoder,
            rrf_k=_int(env, "RETRIEVER_RRF_K", s.rrf_k),
            backend=env.get("RETRIEVER_BACKEND", "").strip() or s.backend,
            milvus_uri=env.get("RETRIEVER_MILVUS_URI", "").strip() or None,
            milvus_token=env.get("RETRIEVER_MILVUS_TOKEN", "").strip() or None,
            engine_budget_s=_float(env, "RETRIEVER_ENGINE_BUDGET_S", s.engine_budget_s),
            usage_words=_usage_words(env.get("RETRIEVER_USAGE_WORDS", "").strip(), s.usage_words),
        )
        s.validate()
        return s

    def validate(self) -> None:
        if self.jina_dense_model not in ALLOWED_DENSE_MODELS:
            raise ConfigError(
                f"JINA_MODEL={self.jina_dense_model!r} is not allowed; use one of {', '.join(ALLOWED_DENSE_MODELS)}"
            )
        if self.jina_multi_model not in ALLOWED_MULTI_MODELS:
            raise ConfigError(
                f"JINA_COLBERT_MODEL={self.jina_multi_model!r} is not allowed; use one of "
                f"{', '.join(ALLOWED_MULTI_MODELS)}"
            )
        if not self.jina_api_base.startswith(("http://", "https://")):
            raise ConfigError(f"JINA_API_BASE={self.jina_api_base!r} must start with http:// or https://")
        if self.jina_dense_dimensions <= 0 or self.jina_multi_dimensions not in (64, 96, 128):
            raise ConfigError(f"bad embedding dimensions {self.jina_dense_dimensions}/{self.jina_multi_dimensions}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"RETRIEVER_BACKEND={self.backend!r} is not one of {', '.join(BACKENDS)}")
        if self.encoder not in ENCODERS:
            raise ConfigError(f"RETRIEVER_ENCODER={self.encoder!r} is not one of {', '.join(ENCODERS)}")
        if self.rrf_k <= 0:
            raise ConfigError(f"RETRIEVER_RRF_K={self.rrf_k} must be positive")


def _usage_words(raw: str, default: Path | None) -> Path | None:
    if not raw:
        return default
    return None if raw.lower() in ("0", "off", "none", "no") else Path(raw)


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value <= 0:
        raise ConfigError(f"{name}={raw!r} must be positive")
    return value
