#!/bin/bash
# Build macroxue/bridge-solver's batch driver (the shared yardstick, tools/bridge-solver of the shared folder beside
# the project, read-only) into bench/out/bridge-solver/bs_batch, for the bridge-solver column of bench/dd.py.  Not
# part of the product.  BS_DIR names the source folder; by default it is found as bench/shared.py finds the shared
# folder (SQUEEZE_SHARED, else the nearest folder named shared above this checkout).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BS_DIR:-}" ]; then
    SHARED=${SQUEEZE_SHARED:-}
    dir=$(dirname "$HERE")
    while [ -z "$SHARED" ] && [ "$dir" != "/" ]; do
        dir=$(dirname "$dir")
        if [ -d "$dir/shared" ]; then SHARED="$dir/shared"; fi
    done
    BS_DIR=${SHARED:?no shared folder found: set SQUEEZE_SHARED or BS_DIR}/tools/bridge-solver
fi
OUT=${OUT:-$HERE/out/bridge-solver} bash "$BS_DIR/build.sh"
