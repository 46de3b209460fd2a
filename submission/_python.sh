# Sourced by build.sh and search.sh: picks the Python that runs the retriever.
# Bundle (submission/retriever present): python3 from PATH with site-packages off, imports from this folder only.
# Checkout: the repo's .venv when it exists, else python3 from PATH.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -d "$here/retriever" ]; then
  py="$(command -v python3 || true)"
  flags=(-S -E -s)
elif [ -x "$here/../.venv/bin/python" ]; then
  py="$here/../.venv/bin/python"
  flags=(-E -s)
else
  py="$(command -v python3 || true)"
  flags=(-E -s)
fi
if [ -z "$py" ]; then
  echo "retriever: python3 not found on PATH (Python 3.10+ needed)" >&2
  exit 1
fi
export PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
