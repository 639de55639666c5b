"""Where a kerasish training step's CPU goes: per-step CPU, system time, page faults and
each OS thread's CPU (main, kerasish's workers, BLAS's own threads).

    PYTHONPATH=<checkout> python benchmarks/step_threads.py [--workload mnist_cnn]
        [--threads 2] [--steps 20]

Run it once per checkout (e.g. this one and the commit before a change, alternating)
to compare them on a busy machine: CPU time is less inflated by other jobs than
elapsed time, and a BLAS thread that spins instead of working shows up as CPU time
of a thread that is neither the main thread nor one of kerasish's workers.
"""
import argparse
import glob
import os
import resource
import threading
import time


def thread_ticks():
    """{(tid, name): user + system clock ticks} for every thread of this process."""
    ticks = {}
    for task in glob.glob("/proc/self/task/*"):
        try:
            with open(task + "/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(task + "/comm") as f:
                name = f.read().strip()
        except OSError:  # the thread ended meanwhile
            continue
        ticks[(int(task.rsplit("/", 1)[1]), name)] = int(fields[11]) + int(fields[12])
    return ticks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="mnist_cnn")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    os.environ["BENCH_THREADS"] = args.threads
    import step_worker  # pins the thread counts before numpy loads
    run = step_worker.kerasish_runner(args.workload)
    run(3)
    hz = os.sysconf("SC_CLK_TCK")
    before, usage, wall, cpu = (thread_ticks(), resource.getrusage(resource.RUSAGE_SELF),
                                time.perf_counter(), time.process_time())
    run(args.steps)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after, end = thread_ticks(), resource.getrusage(resource.RUSAGE_SELF)
    n = args.steps
    print(f"{args.workload}, {args.threads} thread(s), {n} steps, load average "
          f"{os.getloadavg()[0]:.1f}: elapsed {1000 * wall / n:.1f} ms/step, CPU "
          f"{1000 * cpu / n:.1f} ms/step (system {1000 * (end.ru_stime - usage.ru_stime) / n:.1f}),"
          f" {(end.ru_minflt - usage.ru_minflt) / n:.0f} page faults/step")
    python_threads = {t.native_id: t.name for t in threading.enumerate()}
    for (tid, name), ticks in sorted(after.items()):
        used = (ticks - before.get((tid, name), 0)) / hz
        label = python_threads.get(tid, "not a Python thread: BLAS/OpenMP")
        print(f"  thread {tid} ({label}): {used:.2f} s CPU")


if __name__ == "__main__":
    main()
