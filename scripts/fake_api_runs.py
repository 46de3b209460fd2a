"""Does a stronger embedding count, and does a broken one hurt? Two builds and evals against a local fake Jina.

`--serve local` answers the embeddings endpoint with the local MiniLM model's own vectors (so the "Jina"
channel is as good as the offline one); `--serve noise` answers with a deterministic random vector per text.
The multi-vector endpoint answers 404 in both, so only the dense channel differs from the offline build.
Everything runs on 127.0.0.1; the cache is a fresh temp folder.

Usage: python scripts/fake_api_runs.py --serve local|noise --catalog C --queries Q --labels L
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fakejina import API_KEY, FakeJina  # noqa: E402

from retriever.embedders.minilm import MiniLM, find_model_dir  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--serve", choices=("local", "noise"), required=True)
    ap.add_argument("--catalog", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--labels", required=True, type=Path)
    args = ap.parse_args(argv)
    dense = None
    dim = 1024
    if args.serve == "local":
        model_dir = find_model_dir()
        if model_dir is None:
            print("fake_api_runs: the local model is not installed", file=sys.stderr)
            return 1
        model = MiniLM(model_dir)

        def dense(texts: list[str]) -> np.ndarray:
            return model.embed(texts, "document")

        dim = 384
    with FakeJina(dense=dense, multi=False) as fake, tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "JINA_API_KEY": API_KEY, "JINA_API_BASE": fake.base_url,
               "JINA_DIMENSIONS": str(dim), "RETRIEVER_CACHE_DIR": str(Path(tmp) / "cache"),
               "RETRIEVER_API_BUDGET_S": "10", "JINA_TIMEOUT_S": "60"}
        index = Path(tmp) / "index"
        py = [sys.executable, "-m", "retriever"]
        subprocess.run([*py, "build", "--corpus", str(args.catalog), "--index-dir", str(index)], env=env,
                       check=True, cwd=ROOT)
        subprocess.run([*py, "eval", "--quiet", "--index-dir", str(index), "--queries", str(args.queries),
                        "--labels", str(args.labels)], env=env, check=True, cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
