"""Training-step time of the five standard workloads: kerasish vs its peers, one run.

    python benchmarks/bench_steps.py [--rounds 3] [--only mlp,bn_mlp] [--seconds 1.0]
        [--torch-python /work/venvs/bench/bin/python]
        [--kerasjax-python /work/venvs/kerasjax/bin/python]
        [--kerasish-also before=/path/to/another/checkout]

Peers (each its own process, `step_worker.py`, pinned to 2 threads):
  kerasish   `model.train_step` on a fixed batch (forward under a tape, loss,
             backward, Adam), this checkout on PYTHONPATH
  torch      PyTorch eager, the same network and Adam (a venv with torch 2.13)
  numpy      a hand-written numpy step (MLP and BN-MLP only)
  kerasjax   Keras 3 on JAX, XLA-compiled step, timed through `fit` (a venv with
             keras 3.15.1 and jax[cpu]); left out when that interpreter is missing
  LABEL      with `--kerasish-also LABEL=PATH`: kerasish from another checkout
             (e.g. the commit before a change), timed in the same rounds; and
  LABEL_jit  its captured step, when `kerasish_jit` is among the peers

Workloads: tiny (Dense(10) on 32 features, batch 32), mlp (784-512-512-10
relu, batch 128), bn_mlp (784-256-BN-256-BN-10, batch 256), mnist_cnn (the
classic Keras example, batch 128), imdb_lstm (Embedding 20000x128, length 80,
LSTM(128), batch 64) and imdb_lstm_dropout (the same with LSTM(32,
dropout=0.2)). All use Adam.

For each workload every peer's process is started and warmed up, then
`--rounds` rounds time each peer for about `--seconds` of steps, in an order
that rotates every round (so no peer always runs first or last on a machine
whose load drifts). The table gives each peer's median over rounds of ms per
step (steady-state throughput of back-to-back steps), kerasish / PyTorch and
kerasish / fastest peer, and each process's peak RSS. `--clock cpu` reports
each peer process's CPU time instead of elapsed time: on a machine shared with
other jobs, time-sharing inflates elapsed time by the load factor while CPU
time stays put (with `--threads 1` it is the step's single-core time; with
more threads it also counts spin-waiting).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKLOADS = ["tiny", "mlp", "bn_mlp", "mnist_cnn", "imdb_lstm", "imdb_lstm_dropout"]
NUMPY_WORKLOADS = {"mlp", "bn_mlp"}


class Peer:
    """A running `step_worker.py` process for one (peer, workload)."""

    def __init__(self, name, python, workload, runner=None, path=None):
        runner = runner or name
        path = path or (ROOT if runner.startswith("kerasish") else "")
        env = dict(os.environ, PYTHONPATH=path)
        self.name = name
        self.proc = subprocess.Popen([python, os.path.join(HERE, "step_worker.py"), runner,
                                      workload],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env, cwd=HERE)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"{name} worker for {workload} failed to start ({line!r})")

    clock = 0  # 0: wall-clock ms, 1: CPU ms (set from --clock)

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        values = self.proc.stdout.readline().split()
        return float(values[self.clock if len(values) > 1 else 0])

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=60)


def steps_for(peer, seconds):
    """How many steps make about `seconds` of timing, from a short probe."""
    probe = peer.ask("time 2")
    return max(2, int(seconds * 1000 / max(probe, 1e-3)))


def run_workload(workload, pythons, rounds, seconds, extra=()):
    peers = {}
    for name, python in pythons.items():
        if name == "numpy" and workload not in NUMPY_WORKLOADS:
            continue
        peers[name] = Peer(name, python, workload)
    for label, path in extra:
        for runner in ("kerasish", "kerasish_jit"):
            if runner in pythons:
                name = label if runner == "kerasish" else f"{label}_jit"
                peers[name] = Peer(name, pythons[runner], workload, runner=runner, path=path)
    steps = {name: steps_for(p, seconds) for name, p in peers.items()}
    times = {name: [] for name in peers}
    order = list(peers)
    for r in range(rounds):
        turn = order[r % len(order):] + order[:r % len(order)]
        if r % 2:
            turn.reverse()
        for name in turn:
            times[name].append(peers[name].ask(f"time {steps[name]}"))
    rss = {name: p.ask("rss") for name, p in peers.items()}
    for p in peers.values():
        p.close()
    return {name: statistics.median(t) for name, t in times.items()}, rss, times


def fmt(value):
    return "—" if value is None else (f"{value:.2f}" if value < 100 else f"{value:.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="about how long each peer's timing run takes, per round")
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--peers", default="kerasish,kerasish_jit,torch,numpy,kerasjax")
    parser.add_argument("--kerasish-python", default=sys.executable)
    parser.add_argument("--torch-python", default="/work/venvs/bench/bin/python")
    parser.add_argument("--kerasjax-python", default="/work/venvs/kerasjax/bin/python")
    parser.add_argument("--threads", type=int, default=2,
                        help="threads of every peer (BLAS, OpenMP, torch, XLA)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: elapsed time; cpu: the peer process's CPU time (all its "
                        "threads), which time-sharing with other jobs does not inflate")
    parser.add_argument("--raw", action="store_true", help="also print every round's figures")
    parser.add_argument("--kerasish-also", action="append", default=[],
                        help="LABEL=PATH: also time kerasish imported from PATH")
    args = parser.parse_args()
    os.environ["BENCH_THREADS"] = str(args.threads)
    Peer.clock = 1 if args.clock == "cpu" else 0
    wanted = args.peers.split(",")
    pythons = {"kerasish": args.kerasish_python, "kerasish_jit": args.kerasish_python,
               "torch": args.torch_python,
               "numpy": args.kerasish_python, "kerasjax": args.kerasjax_python}
    pythons = {k: v for k, v in pythons.items() if k in wanted}
    for name in ("torch", "kerasjax"):
        if name in pythons and not os.path.exists(pythons[name]):
            print(f"note: {name} column skipped ({pythons[name]} not found)")
            del pythons[name]
    start = time.time()
    rows = []
    for workload in args.only.split(","):
        extra = [tuple(item.split("=", 1)) for item in args.kerasish_also]
        med, rss, raw = run_workload(workload, pythons, args.rounds, args.seconds, extra)
        rows.append((workload, med, rss))
        if args.raw:
            print(workload, {k: [round(v, 3) for v in vs] for k, vs in raw.items()}, flush=True)
    names = list(pythons)
    for item in args.kerasish_also:
        label = item.split("=", 1)[0]
        names += [label] if "kerasish" in pythons else []
        names += [f"{label}_jit"] if "kerasish_jit" in pythons else []
    print(f"\n{args.clock} ms/step, {args.threads} thread(s) per peer, median of {args.rounds} "
          "alternating rounds "
          f"({time.time() - start:.0f} s; load average {os.getloadavg()[0]:.1f})\n")
    print("| workload | " + " | ".join(names) + " | kerasish / torch | kerasish / fastest peer "
          "| peak RSS MiB (" + ", ".join(names) + ") |")
    print("|---|" + "---|" * (len(names) + 3))
    for workload, med, rss in rows:
        cells = [fmt(med.get(n)) for n in names]
        others = [v for k, v in med.items() if k in ("torch", "numpy", "kerasjax")]
        vs_torch = (f"{med['kerasish'] / med['torch']:.2f}x"
                    if "kerasish" in med and "torch" in med else "—")
        vs_best = f"{med['kerasish'] / min(others):.2f}x" if "kerasish" in med and others else "—"
        mem = ", ".join(f"{rss[n]:.0f}" if n in rss else "—" for n in names)
        print(f"| {workload} | " + " | ".join(cells) + f" | {vs_torch} | {vs_best} | {mem} |")


if __name__ == "__main__":
    main()
