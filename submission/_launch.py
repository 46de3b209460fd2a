"""Start the retriever with imports from this folder only (alone) or from the checkout beside it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.version_info < (3, 10):  # noqa: UP036 - this line must run on an old python to say so
    sys.stderr.write(f"retriever: Python 3.10 or newer is needed, found {sys.version.split()[0]}\n")
    sys.exit(1)

here = Path(__file__).resolve().parent
# In a checkout the package is imported through the repo's top-level link and its
# dependencies come from the venv that runs this; alone, everything comes from this folder.
if (here.parent / "pyproject.toml").is_file() and (here.parent / "retriever" / "__init__.py").is_file():
    sys.path.insert(0, str(here.parent))
else:
    sys.path[:0] = [os.environ.get("RETRIEVER_VENDOR") or str(here / "_vendor"), str(here)]
    from _check import check_or_exit

    check_or_exit(here)

try:
    from retriever.cli import main
except ImportError as e:
    sys.stderr.write(f"retriever: cannot import its dependencies ({e}); run 'make bundle' or 'make install'\n")
    sys.exit(1)

sys.exit(main(sys.argv[1:]))
