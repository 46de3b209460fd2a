"""Start the retriever with imports from this folder only (bundle) or from the checkout beside it."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info < (3, 10):
    sys.stderr.write(f"retriever: Python 3.10 or newer is needed, found {sys.version.split()[0]}\n")
    sys.exit(1)

here = Path(__file__).resolve().parent
if (here / "retriever").is_dir():
    sys.path[:0] = [str(here / "_vendor"), str(here)]
else:
    sys.path.insert(0, str(here.parent))

try:
    from retriever.cli import main
except ImportError as e:
    sys.stderr.write(f"retriever: cannot import its dependencies ({e}); run 'make bundle' or 'make install'\n")
    sys.exit(1)

sys.exit(main(sys.argv[1:]))
