#!/usr/bin/env bash
# Serve JSONL requests: bash search.sh --index-dir DIR  (prints {"ready":true}, then one answer per request)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
# One BLAS thread: per-question matrices are small, and spinning threads hurt under load.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
exec "$py" "${flags[@]}" "$here/_launch.py" serve "$@"
