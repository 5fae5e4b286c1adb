#!/bin/bash
# Build macroxue/bridge-solver's batch driver (the shared yardstick, /work/shared/tools/bridge-solver, read-only)
# into bench/out/bridge-solver/bs_batch, for the bridge-solver column of bench/dd.py.  Not part of the product.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BS_DIR=${BS_DIR:-/work/shared/tools/bridge-solver}
OUT=${OUT:-$HERE/out/bridge-solver} bash "$BS_DIR/build.sh"
