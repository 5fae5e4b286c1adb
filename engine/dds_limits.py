"""The double-dummy solver's memory limits, in a module of their own: pure-Python code (the card player's settings,
the configuration layer) reads them without importing the compiled solver (``engine.dds``), which re-exports them."""

#: Default memory of one solver's transposition table, MiB (the brief's ceiling is 256 MiB per solver).
DEFAULT_TT_MIB = 64
#: The largest table ``engine.dds.Solver`` accepts, MiB.
MAX_TT_MIB = 4096
