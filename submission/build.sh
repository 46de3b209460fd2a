#!/usr/bin/env bash
# Build the index: bash build.sh --corpus CATALOG.json --index-dir DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
source "$here/_vendor.sh"
# One BLAS thread: with two, one other busy process made the MiniLM pass 8x slower (1,200 BIRD texts:
# 50 s instead of 6 s); on an idle machine one thread costs less than that loses.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
exec "$py" "${flags[@]}" "$here/_launch.py" build "$@"
