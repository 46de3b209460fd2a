# Sourced by build.sh and search.sh: picks the Python that runs the retriever.
# Checkout (a pyproject.toml and retriever/ beside this folder): the repo's .venv, else python3 from PATH.
# Bundle (this folder copied alone): python3 from PATH with site-packages off, imports from this folder only.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$here/../pyproject.toml" ] && [ -f "$here/../retriever/__init__.py" ]; then
  if [ -x "$here/../.venv/bin/python" ]; then py="$here/../.venv/bin/python"; else py="$(command -v python3 || true)"; fi
  flags=(-E -s)
else
  py="$(command -v python3 || true)"
  flags=(-S -E -s)
fi
if [ -z "$py" ]; then
  echo "retriever: python3 not found on PATH (Python 3.10+ needed)" >&2
  exit 1
fi
export PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
