from __future__ import annotations

import sys

try:
    from .cli import main
except ModuleNotFoundError as e:  # e.g. the system python3 instead of the project's venv
    sys.exit(f"retriever: {e}. Run it with the project's interpreter: .venv/bin/python -m retriever ... "
             "(`make install` creates .venv), or use the make targets (make query Q=...).")

sys.exit(main())
