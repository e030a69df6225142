"""A process of the sharding tests (tests/test_sharding.py): JAX's devices are fixed when it starts, so runs on
several CPU devices, or as one of several processes, happen in a fresh interpreter.

    python -m tests.sharded_worker --devices 3 --use 2,3 CASE...          # one process, 3 CPU devices
    python -m tests.sharded_worker --devices 2 --processes 2 --process-id 0 --port P CASE...   # one of two

Each CASE is a policy of tests/golden.py's contract cases; its driver run (`jaxbandit.simulate`) on the devices in
use must equal, bit for bit, the values the engine recorded on one device (tests/data/golden_contract_v1.npz), or
with ``--runs R`` (R runs instead of the record's 3) the same call on this process's first device alone (also for
``--simulator epochs``).
``--resume``: the run is first interrupted after its first chunk with a checkpoint, then resumed on the next device
count (or, with several processes, by the same processes). Prints one JSON line; exit status 1 on a mismatch.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--devices", type=int, required=True, help="CPU devices of this process")
    ap.add_argument("--use", default="", help="comma-separated device counts to run on (one process)")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--process-id", type=int, default=0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--resume", metavar="DIR", help="interrupt and resume with a checkpoint in DIR")
    ap.add_argument("--runs", type=int, help="runs per case, compared with one device (default: the record's)")
    ap.add_argument("--horizon", type=int, help="with --runs: the horizon (default: the record's)")
    ap.add_argument("--chunks", choices=("blocks", "timed"), default="blocks",
                    help="one block per chunk, or chunks sized by the driver's timings")
    ap.add_argument("--simulator", default="steps", help="with --runs: jaxbandit.simulate's simulator")
    args = ap.parse_args()

    import jaxbandit as jb
    from jaxbandit import sharding
    if args.processes > 1:
        sharding.initialize(f"127.0.0.1:{args.port}", args.processes, args.process_id, cpu_devices=args.devices)
    else:
        jb.use_cpu_devices(args.devices)
    import jax

    from tests import golden
    from tests.test_contracts import HORIZON, RUNS, SEED, TIMES

    uses = [int(u) for u in args.use.split(",")] if args.use else [None]
    mismatches, ran = [], []
    with np.load(golden.CONTRACT_PATH) as record:
        for name in args.cases:
            env, ep, pp, priv, qp, _ = golden.POLICY_CASES[name]
            kwargs = dict(privatizer=priv, env_params=ep, policy_params=pp, privatizer_params=qp,
                          policy_options=golden.options(f"policy/{name}"), runs=args.runs or RUNS,
                          seed=SEED, record=TIMES if args.horizon is None else 20,
                          horizon=args.horizon or golden.CONTRACT_HORIZONS.get(name, HORIZON),
                          chunk_steps=jb.BLOCK if args.chunks == "blocks" else None, progress=False, unroll=1,
                          simulator=args.simulator)
            if args.runs:  # the reference: this process's first device alone
                alone = jb.simulate(env, name, devices=jax.local_devices()[:1], **kwargs)
                recorded = {f"policy/{name}:{f}": getattr(alone, f) for f in ("pseudo_regret", "regret", "counts")}
            else:
                recorded = record
            for i, use in enumerate(uses):
                if args.resume:
                    path = os.path.join(args.resume, f"{name}.npz")
                    chunks = []

                    def stop(partial):
                        chunks.append(partial.t[-1])
                        if len(chunks) == 1:
                            raise KeyboardInterrupt

                    try:
                        jb.simulate(env, name, devices=use, checkpoint=path, callback=stop, **kwargs)
                        raise AssertionError(f"{name}: the run was not interrupted")
                    except jb.simulation.Interrupted:
                        pass
                    use_after = uses[(i + 1) % len(uses)]  # resume on another number of devices
                    first = []
                    res = jb.simulate(env, name, devices=use_after, checkpoint=path,
                                      callback=lambda partial: first.append(partial.t[-1]), **kwargs)
                    own = sharding.process_file(path) if args.processes > 1 else path
                    if first[0] <= chunks[-1] or os.path.exists(own):
                        mismatches.append(f"{name}: did not resume (first chunk to t={first[0]}) or kept its file")
                else:
                    res = jb.simulate(env, name, devices=use, **kwargs)
                for field in ("pseudo_regret", "regret", "counts"):
                    if not np.array_equal(getattr(res, field), recorded[f"policy/{name}:{field}"]):
                        mismatches.append(f"{name} on {use} devices: {field} differs from one device's")
                ran.append({"case": name, "devices": res.config["devices"],
                            "processes": res.config.get("processes", 1)})
    print(json.dumps({"process": jax.process_index(), "ran": ran, "mismatches": mismatches}))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
