#!/usr/bin/env bash
# The project's GPU check: one prepared command for a lent GPU machine, whose python3 has jax with CUDA, optax, chex,
# matplotlib, tqdm, pytest and pytest-xdist. It installs the package without dependencies, prints the devices, runs
# the engine benchmark at GPU scale (10^5 runs; the NumPy loops on the host only 100 steps) into
# benchmarks/RESULTS.md, and the tests marked gpu (tests/test_gpu.py). With $OUT set (the device tool's output
# folder), RESULTS.md is copied there so that the figures come back.
#
#     bash benchmarks/gpu_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The lent machine has no network: no build isolation (it would fetch setuptools); without setuptools, the source
# tree on PYTHONPATH.
python3 -m pip install -q --no-deps --no-build-isolation -e . || export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import jax; print('devices:', jax.devices())"
python3 benchmarks/bench_engine.py --runs 100000 --horizon 10000 --numpy-horizon 100 --repeats 2 --record
status=0
python3 -m pytest -q -n 0 --runslow -m gpu tests/test_gpu.py || status=$?
if [ -n "${OUT:-}" ]; then cp benchmarks/RESULTS.md "$OUT/"; fi
exit "$status"
