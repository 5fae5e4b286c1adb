"""``squeeze tm``: our Blue Chip table manager - one port, many tables, clocks, nothing lost, resumable.

- ``server.TableManager``: the asyncio server; each table is a ``protocol.TableMachine``;
- ``routing``: which match and room a connection goes to, or why it is refused (pure: no sockets);
- ``clocks``: the clock policy - given the time and what a table waits for, warn, force or void (pure);
- ``store.ResultsStore``: the durable results (SQLite, WAL, ``synchronous=FULL``), one row per finished board;
- ``plan``: the boards (PBN file or seeded random deals, a board range) and the matches (match file or by team);
- ``export.write_outputs``: PBN, LIN and a summary written from the store;
- ``compliance.ComplianceReport``: ``--compliance-report``: a report per connection;
- ``transcript``: the log's ``tm.line`` events read back as a transcript;
- ``run.run_tm``: what the command does (plan, store, serve, export).
"""

from .compliance import ComplianceReport
from .export import write_outputs
from .plan import MatchSpec, PlanError, load_boards, load_match_file, parse_board_range, random_boards
from .run import RunError, prepare_run, run_tm
from .server import TableManager
from .store import DuplicateBoardError, ResultsStore, StoreError
from .transcript import format_transcript, read_transcript

__all__ = [
    "ComplianceReport", "DuplicateBoardError", "MatchSpec", "PlanError", "ResultsStore", "RunError", "StoreError",
    "TableManager", "format_transcript", "load_boards", "load_match_file", "parse_board_range", "prepare_run",
    "random_boards", "read_transcript", "run_tm", "write_outputs",
]
