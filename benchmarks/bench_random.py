"""Cost of random draws per training step: a dropout mask and a uniform draw.

    python benchmarks/bench_random.py [--repeats 15] [--shape 128,12,12,64]
        [--also before=/path/to/another/checkout]

Times `keras.random.dropout(x, 0.5, seed=SeedGenerator)` (what a Dropout layer
does in each training step) and `keras.random.uniform(shape, seed=...)` on
float32 input of `--shape` (default: the MNIST convnet's first-conv output),
in this checkout and, with `--also`, in another one; each in its own process,
alternating, reporting the median ms of the runs.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = r"""
import json, sys, time
import numpy as np
import kerasish as keras
shape = tuple(int(n) for n in sys.argv[1].split(","))
repeats = int(sys.argv[2])
x = keras.ops.ones(shape)
gen = keras.random.SeedGenerator(1)

def best(fn):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))

print(json.dumps({"dropout": best(lambda: keras.random.dropout(x, 0.5, seed=gen)),
                  "uniform": best(lambda: keras.random.uniform(shape, seed=gen))}))
"""


def run(path, shape, repeats):
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run([sys.executable, "-c", WORKER, shape, str(repeats)], env=env,
                         capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shape", default="128,12,12,64")
    parser.add_argument("--also", action="append", default=[], help="LABEL=PATH")
    args = parser.parse_args()
    checkouts = [("this", ROOT)] + [tuple(a.split("=", 1)) for a in args.also]
    results = {label: [] for label, _ in checkouts}
    for _ in range(args.rounds):
        for label, path in checkouts:
            results[label].append(run(path, args.shape, args.repeats))
    print(f"shape {args.shape}, float32; median ms over {args.rounds} alternating runs")
    for label, runs in results.items():
        print(f"{label:>10}: dropout {statistics.median(r['dropout'] for r in runs):7.2f} ms   "
              f"uniform {statistics.median(r['uniform'] for r in runs):7.2f} ms")


if __name__ == "__main__":
    main()
