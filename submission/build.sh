#!/usr/bin/env bash
# Build the index: bash build.sh --corpus CATALOG.json --index-dir DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
source "$here/_vendor.sh"
exec "$py" "${flags[@]}" "$here/_launch.py" build "$@"
