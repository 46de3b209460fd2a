# Sourced by build.sh and search.sh: picks the Python that runs the retriever and where its dependencies are.
# Checkout (a pyproject.toml and retriever/ beside this folder): the repo's .venv, else python3 from PATH.
# Alone (this folder copied by itself): python3 from PATH with site-packages off; dependencies from _vendor/,
# which `make bundle` fills, or which build.sh installs there once from the package index (see _vendor.sh);
# when this folder is read-only, from a per-user folder keyed by the pins and the python version instead.
# RETRIEVER_VENDOR_DIR names that folder explicitly.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$here/../pyproject.toml" ] && [ -f "$here/../retriever/__init__.py" ]; then
  if [ -x "$here/../.venv/bin/python" ]; then py="$here/../.venv/bin/python"; else py="$(command -v python3 || true)"; fi
  flags=(-B -E -s)
  alone=0
else
  py="$(command -v python3 || true)"
  flags=(-B -S -E -s)
  alone=1
fi
if [ -z "$py" ]; then
  echo "retriever: python3 not found on PATH (Python 3.10+ needed)" >&2
  exit 1
fi
if [ "$alone" = 1 ]; then
  if [ -n "${RETRIEVER_VENDOR_DIR:-}" ]; then
    vendor="$RETRIEVER_VENDOR_DIR"
  elif [ -d "$here/_vendor" ] || [ -w "$here" ]; then
    vendor="$here/_vendor"
  else
    pyver="$("$py" -S -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo unknown)"
    pins="$(cat "$here/requirements.txt" "$here/requirements-nodeps.txt" | cksum | cut -d' ' -f1)"
    vendor="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/join-table-retriever/vendor-py$pyver-$pins"
  fi
  export RETRIEVER_VENDOR="$vendor"  # read by _launch.py
fi
export PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
