"""What the Milvus build and search share: the client, collection layout and names, the result limit.

pymilvus (and milvus-lite for a local folder) are an optional extra, imported only here and only when an
index uses the Milvus backend, so the default path never needs them.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from ..errors import EngineError

#: The four collections (one row per table, column, group, table's sample values), as the lexical channels.
PARTS = ("tables", "columns", "groups", "values")
#: Parts that also carry a vector field per dense channel.
DENSE_PARTS = ("tables", "columns", "groups")
#: Most hits one search returns (Milvus' topk limit): at most this many docs per term or per dense part come
#: back, so a catalog with more rows gets the top of each list (exact below it; see docs/scaling.md).
TOPK = 16384
#: Rows per insert call during the build.
BATCH = 2000
#: Seconds to reach the engine at build and at search start.
CONNECT_S = 10.0
#: Collections being written carry this suffix until complete, then are renamed: a name without it is whole.
BUILDING = "__building"
INSTALL_HINT = ("RETRIEVER_BACKEND=milvus needs pymilvus (and milvus-lite for a local Milvus Lite folder) in "
                "the Python that runs the retriever: pip install 'pymilvus>=2.6' 'milvus-lite>=3.2' "
                "(the `milvus` extra of pyproject.toml)")


def redact(uri: str) -> str:
    """The URI without credentials (user:password@) for manifests and messages."""
    return re.sub(r"//[^/@]*@", "//***@", uri)


def _pymilvus() -> Any:
    try:
        import pymilvus
    except ImportError:
        raise EngineError(INSTALL_HINT) from None
    return pymilvus


def connect(uri: str, token: str | None) -> Any:
    """A MilvusClient, or EngineError in one line (no pymilvus, engine unreachable)."""
    pm = _pymilvus()
    # pymilvus logs every failed call with a traceback; the callers report each failure in one line.
    for name in ("pymilvus", "milvus_lite", "grpc"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if uri.endswith(".db"):
        try:
            import milvus_lite  # noqa: F401 - pymilvus starts it for a .db path; say so if it is missing
        except ImportError:
            raise EngineError(INSTALL_HINT) from None
    try:
        return pm.MilvusClient(uri=uri, token=token or "", timeout=CONNECT_S)
    except Exception as e:  # noqa: BLE001 - grpc, network and Lite errors all mean "cannot serve"
        raise EngineError(f"Milvus at {redact(uri)} is unreachable ({type(e).__name__}: {_short(e)})") from None


def close(client: Any, uri: str) -> None:
    """Close the client; for Milvus Lite also stop its in-process server so the folder can be moved."""
    try:
        client.close()
    finally:
        if uri.endswith(".db"):
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(uri)


def lite_uri(index_dir: Path) -> str:
    from ..index.store import ENGINE_DIR

    return str(Path(index_dir).resolve() / ENGINE_DIR)


def _short(e: BaseException) -> str:
    return " ".join(str(e).split())[:200]
