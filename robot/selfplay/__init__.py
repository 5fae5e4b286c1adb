"""Self-play: two engine configurations play the same boards in two rooms, in-process (no TCP, no protocol).

- ``table.play_board``: one board at a table of four ``engine.Player`` seats, each told only its ``SeatView``;
- ``worker.run_chunk``: what a worker process runs, both rooms of a few boards with players it builds once;
- ``executors``: where chunks run, a local process pool or Dask;
- ``report``: the figures (IMPs per board, bidding/play split, par-adjusted), ``summary.json`` and ``imps.png``;
- ``run``: ``run_selfplay``, the resumable run over the table manager's results store (``squeeze selfplay``).
"""

from .table import DecisionOverLimit, play_board

__all__ = ["play_board", "DecisionOverLimit"]
