"""cProfile of one workload's training step (the captured step by default).

    BENCH_THREADS=2 PYTHONPATH=<checkout> python benchmarks/profile_step.py tiny \
        [--sort tottime|cumulative|ncalls] [--steps 2000] [--eager] [--lines 45]

Builds the workload as `step_worker.py` does (kerasish from PYTHONPATH), warms
it up, then profiles `--steps` back-to-back steps and prints the top `--lines`
functions. cProfile inflates Python-heavy functions against numpy's C calls
(which it does not list), so read it for where the calls go, and time changes
with `bench_steps.py`.
"""
import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import step_worker  # noqa: E402  (sets the thread counts before numpy loads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=sorted(step_worker.WORKLOADS))
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--eager", action="store_true", help="the eager `train_step` instead")
    parser.add_argument("--lines", type=int, default=45)
    args = parser.parse_args()
    make = step_worker.kerasish_runner if args.eager else step_worker.kerasish_jit_runner
    run = make(args.workload)
    run(50)
    profile = cProfile.Profile()
    profile.enable()
    run(args.steps)
    profile.disable()
    stats = pstats.Stats(profile)
    print(f"{args.steps} steps of {args.workload} "
          f"({'eager' if args.eager else 'captured'}); per step = total / {args.steps}")
    stats.sort_stats(args.sort).print_stats(args.lines)


if __name__ == "__main__":
    main()
