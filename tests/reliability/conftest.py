"""The reliability suite imports the shared test clients (``tests/tm_client.py``) and its own harness: pytest puts
only this folder on ``sys.path`` for the files in it, so the parent folder is added here."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
