#!/usr/bin/env bash
# Serve JSONL requests: bash search.sh --index-dir DIR  (prints {"ready":true}, then one answer per request)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
exec "$py" "${flags[@]}" "$here/_launch.py" serve "$@"
