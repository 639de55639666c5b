"""A recurrent step's small products on one and on two BLAS threads (wall clock).

    python benchmarks/bench_blas_threads.py [--units 128] [--batch 64] [--reps 200]

Times the 80 forward (`h @ rec`, (batch, units) by (units, 4 units)) and 80
backward (`dz @ rec.T`) products of one LSTM training step, with OpenBLAS
limited to 1 and to 2 threads (threadpoolctl), alternating repetition by
repetition; prints min, 10th percentile and median. On a machine shared with
other jobs a multi-threaded BLAS call waits for a descheduled thread at its end,
which is why kerasish's LSTM runs its step loop on one BLAS thread.
"""
import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

import numpy as np  # noqa: E402  (after the thread setting)
from threadpoolctl import threadpool_limits  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    u, b = args.units, args.batch
    h, rec = (rng.normal(size=s).astype("float32") for s in ((b, u), (u, 4 * u)))
    dz = rng.normal(size=(b, 4 * u)).astype("float32")
    out, back = np.empty((b, 4 * u), "float32"), np.empty((b, u), "float32")

    def step():
        for _ in range(80):
            np.matmul(h, rec, out=out)
            np.matmul(dz, rec.T, out=back)
    times = {1: [], 2: []}
    for _ in range(args.reps):
        for threads in times:
            with threadpool_limits(threads, "blas"):
                start = time.perf_counter()
                step()
                times[threads].append(1000 * (time.perf_counter() - start))
    for threads, values in times.items():
        print(f"{threads} BLAS thread(s): 160 products, ms: min {min(values):.2f}, "
              f"10th percentile {np.percentile(values, 10):.2f}, median {np.median(values):.2f}")


if __name__ == "__main__":
    main()
