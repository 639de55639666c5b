"""Benchmark of ParameterServerStrategy: steps/s with 1, 2 and 3 workers.

    python benchmarks/bench_parameter_server.py              # 3 rounds, prints a table
    python benchmarks/bench_parameter_server.py --rounds 5 --samples 12000

Runs examples/parameter_server_mnist.py (MNIST MLP 784-128-10, Adam, batch 64,
one parameter server) under `mpiexec -n 3/4/5` and in one process, the
configurations alternating within each round; reports medians of the
training steps per second (fit only), the test accuracy, the staleness, the
bytes each step moves (pull + push) and the time the server spends applying
one update. Every process gets `OPENBLAS_NUM_THREADS=1`; on a machine with
fewer cores than processes the workers share cores (the table says how
many cores there were).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "parameter_server_mnist.py"
LINE = re.compile(r"([\d.]+) steps/s, test accuracy ([\d.]+)(?:, staleness mean ([\d.]+) max "
                  r"(\d+), ([\d.]+) MB moved per step, ([\d.]+) ms per server update)?")


def run(workers, args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    common = [str(EXAMPLE), "--epochs", "1", "--samples", str(args.samples), "--verbose", "0"]
    if workers == 0:
        command = [sys.executable, *common, "--single"]
    else:
        mpiexec = str(Path(sys.executable).parent / "mpiexec")
        command = [mpiexec, "-n", str(workers + 2), sys.executable, *common]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    match = LINE.search(out.stdout)
    if match is None:
        raise RuntimeError(out.stdout[-2000:] + out.stderr[-2000:])
    return [float(g) if g is not None else None for g in match.groups()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=6000)
    args = parser.parse_args()
    configs = [0, 1, 2, 3]
    results = {c: [] for c in configs}
    for _ in range(args.rounds):
        for config in configs:
            results[config].append(run(config, args))
    print(f"{os.cpu_count()} cores, {args.samples} MNIST samples, batch 64, "
          f"median of {args.rounds} alternating runs\n")
    print("| setup | steps/s | test accuracy | staleness mean / max | MB per step | "
          "ms per server update |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for config in configs:
        columns = list(zip(*results[config]))
        med = [statistics.median(c) if c[0] is not None else None for c in columns]
        name = "one process" if config == 0 else f"{config} worker(s) + 1 server + chief"
        if config == 0:
            print(f"| {name} | {med[0]:.1f} | {med[1]:.4f} | - | - | - |")
        else:
            print(f"| {name} | {med[0]:.1f} | {med[1]:.4f} | {med[2]:.2f} / {med[3]:.0f} | "
                  f"{med[4]:.2f} | {med[5]:.2f} |")


if __name__ == "__main__":
    main()
