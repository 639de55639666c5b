"""Benchmarks of kerasish.distribute: all-reduce overhead and weak scaling.

    python benchmarks/bench_distribute.py            # launches everything, prints tables
    python benchmarks/bench_distribute.py --quick    # fewer repetitions

1. All-reduce overhead per step (2 processes, `mpiexec -n 2`): the time
   kerasish spends exchanging one step's gradients of an MLP (pack into one
   flat buffer per dtype, MPI Allreduce, counters, unpack into views) against
   a raw `MPI.Allreduce` of a float32 buffer of the same size. Goal: <= 1.2x.
2. Weak scaling of the MLP workload (per-worker batch fixed): seconds per
   `fit` step with 1 and 2 worker processes (`OPENBLAS_NUM_THREADS=1` each,
   so two workers use the two cores of the CI machine).
   Efficiency = time(1 worker) / time(2 workers).

Needs `pip install mpi4py mpich`. The inner parts run as
`mpiexec -n N python benchmarks/bench_distribute.py --part allreduce|scaling`.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MLP_SIZES = {"mlp-small (784-512-10)": (784, [512], 10),
             "mlp-large (784-2048-1024-10)": (784, [2048, 1024], 10)}


def make_mlp(inputs, hidden, outputs):
    import kerasish as keras
    layers = [keras.Input((inputs,))]
    layers += [keras.layers.Dense(units, activation="relu") for units in hidden]
    layers.append(keras.layers.Dense(outputs))
    model = keras.Sequential(layers)
    model.compile(optimizer=keras.optimizers.SGD(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


class _NoUpdate:
    """An optimizer stand-in whose `apply` does nothing (we time the exchange only)."""

    built = True

    def apply(self, grads, variables):
        self.grads = grads


def _median_ms(fns, repeats, barrier):
    """Median milliseconds of each function, interleaved so noise hits both alike."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, bucket in zip(fns, times):
            barrier()
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    return [1000 * float(np.median(t)) for t in times]


def part_allreduce(repeats):
    """Per model: ms of kerasish's gradient exchange vs a raw MPI.Allreduce."""
    import kerasish as keras
    from kerasish.distribute import replica_step
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    rows = []
    for name, (inputs, hidden, outputs) in MLP_SIZES.items():
        with strategy.scope():
            model = make_mlp(inputs, hidden, outputs)
        variables = model.trainable_variables
        grads = [np.random.default_rng(0).normal(size=v.shape).astype("float32")
                 for v in variables]
        optimizer = _NoUpdate()

        def ours():
            step = replica_step.StepState(1)
            step.ran[0] = True
            step.applies[0] = (optimizer, grads, variables)
            strategy._merge(step, None, {}, built=False)

        count = sum(g.size for g in grads)
        raw_buffer = np.ones(count, dtype="float32")

        def raw():
            comm.Allreduce(MPI.IN_PLACE, raw_buffer, op=MPI.SUM)

        for fn in (ours, raw):  # warm-up
            fn()
        ours_ms, raw_ms = _median_ms([ours, raw], repeats, comm.Barrier)
        rows.append({"model": name, "params": count, "MB": count * 4 / 2 ** 20,
                     "ours_ms": ours_ms, "raw_ms": raw_ms})
    if comm.rank == 0:
        print(json.dumps(rows))


def part_scaling(steps, per_worker_batch):
    """Seconds per fit step of the MLP with a fixed per-worker batch."""
    import kerasish as keras
    strategy = keras.distribute.MultiWorkerMirroredStrategy()
    workers = strategy.num_replicas_in_sync
    inputs, hidden, outputs = MLP_SIZES["mlp-small (784-512-10)"]
    global_batch = per_worker_batch * workers
    rng = np.random.default_rng(0)
    x = rng.normal(size=(global_batch * (steps + 2), inputs)).astype("float32")
    y = rng.integers(0, outputs, size=len(x))
    with strategy.scope():
        model = make_mlp(inputs, hidden, outputs)
    model.fit(x[:2 * global_batch], y[:2 * global_batch], batch_size=global_batch,
              epochs=1, verbose=0, shuffle=False)  # warm-up
    strategy._world.barrier()
    start = time.perf_counter()
    model.fit(x, y, batch_size=global_batch, epochs=1, verbose=0, shuffle=False)
    elapsed = time.perf_counter() - start
    if strategy.is_chief:
        print(json.dumps({"workers": workers, "global_batch": global_batch,
                          "s_per_step": elapsed / (steps + 2)}))


def _mpiexec():
    local = Path(sys.executable).parent / "mpiexec"
    return str(local) if local.exists() else shutil.which("mpiexec")


def _launch(nprocs, *args, copies=1):
    """Runs this file under `mpiexec -n nprocs` (`copies` independent jobs at once).

    Returns:
        the JSON printed by the chief (a list with one result per copy when copies > 1).
    """
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    command = [_mpiexec(), "-n", str(nprocs), sys.executable, __file__, *map(str, args)]
    jobs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env) for _ in range(copies)]
    results = []
    for job in jobs:
        out, err = job.communicate(timeout=600)
        if job.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{err[-3000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results[0] if copies == 1 else results


def main():
    parser = argparse.ArgumentParser(description="kerasish.distribute benchmarks")
    parser.add_argument("--part", choices=["allreduce", "scaling"])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--per-worker-batch", type=int, default=256)
    args = parser.parse_args()
    if args.part == "allreduce":
        return part_allreduce(args.repeats)
    if args.part == "scaling":
        return part_scaling(args.steps, args.per_worker_batch)
    if _mpiexec() is None:
        sys.exit("bench_distribute needs mpi4py and mpiexec: pip install mpi4py mpich")
    repeats, steps = (10, 8) if args.quick else (args.repeats, args.steps)
    print("All-reduce overhead per step, 2 processes (median ms; goal ours/raw <= 1.2)")
    print("| model | params | MB | kerasish exchange | raw MPI.Allreduce | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for row in _launch(2, "--part", "allreduce", "--repeats", repeats):
        print(f"| {row['model']} | {row['params']:,} | {row['MB']:.2f} | {row['ours_ms']:.3f} "
              f"| {row['raw_ms']:.3f} | {row['ours_ms'] / row['raw_ms']:.2f}x |")
    print()
    print(f"Weak scaling, MLP 784-512-10, {args.per_worker_batch} samples per worker per step")
    print("| workers | global batch | s/step | efficiency |")
    print("| ---: | ---: | ---: | ---: |")
    scaling = ("--part", "scaling", "--steps", steps, "--per-worker-batch", args.per_worker_batch)
    base = _launch(1, *scaling)["s_per_step"]
    two = _launch(2, *scaling)
    print(f"| 1 | {args.per_worker_batch} | {base:.4f} | 100% |")
    print(f"| 2 | {two['global_batch']} | {two['s_per_step']:.4f} "
          f"| {base / two['s_per_step']:.0%} |")
    alone = np.mean([r["s_per_step"] for r in _launch(1, *scaling, copies=2)])
    print(f"| 2 x 1, no communication (machine ceiling) | {args.per_worker_batch} each "
          f"| {alone:.4f} | {base / alone:.0%} |")


if __name__ == "__main__":
    main()
