"""cProfile of kerasish's training step on the `bench_steps.py` workloads.

    PYTHONPATH=$PWD python benchmarks/profile_steps.py mlp [--steps 50] [--top 25] \
        [--captured] [--sort tottime|cumulative|ncalls]

Profiles the eager `train_step` (or, with `--captured`, the captured step `fit`
runs) and prints the functions with the most own time (or `--sort`'s order),
then a summary by category: BLAS (matmul / tensordot / einsum), other numpy
calls, and Python in kerasish's engine, layers, optimizer, losses and metrics.
cProfile inflates Python-heavy functions against numpy's C calls: read it for
where the calls go, and time changes with `bench_steps.py`.
"""
import argparse
import cProfile
import pstats

import step_worker  # pins threads before numpy loads

CATEGORIES = [  # (label, predicate on (file, line, function name)), first match wins
    ("BLAS (matmul/dot/tensordot/einsum)",
     lambda f, n: f == "~" and any(k in n for k in ("matmul", "dot", "einsum", "tensordot"))),
    ("other numpy C calls", lambda f, n: f == "~" and ("numpy" in n or "ufunc" in n
                                                       or "ndarray" in n)),
    ("optimizer (Python)", lambda f, n: "/optimizers/" in f),
    ("metrics + losses (Python)", lambda f, n: "/metrics/" in f or "/losses/" in f),
    ("autodiff engine (Python)", lambda f, n: "/autodiff/" in f),
    ("ops (Python)", lambda f, n: "/kerasish/ops/" in f),
    ("backend kernels (Python)", lambda f, n: "/backend/" in f),
    ("layers (Python)", lambda f, n: "/layers/" in f),
    ("trainer/models (Python)", lambda f, n: "/trainers/" in f or "/models/" in f),
    ("numpy Python wrappers", lambda f, n: "/numpy/" in f),
    ("other", lambda f, n: True),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--captured", action="store_true",
                        help="the captured step (`jit_compile`) instead of the eager one")
    parser.add_argument("--sort", default="tottime")
    args = parser.parse_args()
    make = step_worker.kerasish_jit_runner if args.captured else step_worker.kerasish_runner
    run = make(args.workload)
    run(3)
    profile = cProfile.Profile()
    profile.enable()
    run(args.steps)
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats(args.sort).print_stats(args.top)
    totals = {label: 0.0 for label, _ in CATEGORIES}
    for (file, _, name), (_, _, tottime, _, _) in stats.stats.items():
        for label, test in CATEGORIES:
            if test(file, name):
                totals[label] += tottime
                break
    whole = sum(totals.values())
    print(f"per step: {1000 * whole / args.steps:.2f} ms (under the profiler)")
    for label, seconds in totals.items():
        print(f"  {label:40s} {1000 * seconds / args.steps:8.3f} ms  {100 * seconds / whole:5.1f}%")


if __name__ == "__main__":
    main()
