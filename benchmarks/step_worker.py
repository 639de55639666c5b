"""One peer of `bench_steps.py`, run as its own process: builds a workload, times steps.

    python benchmarks/step_worker.py PEER WORKLOAD

PEER is one of `kerasish`, `numpy` (a hand-written numpy step, MLP and BN-MLP
only), `torch` (PyTorch eager) or `kerasjax` (Keras 3 on JAX, XLA-compiled
step through `fit`). The process pins itself to 2 threads before numpy /
torch / jax load, builds WORKLOAD, runs a few warm-up steps and prints
`ready`; then it answers lines on stdin:

    time N   -> runs N steps back to back, prints wall-clock and CPU ms per step
                (steady throughput; CPU time is the process's, all its threads)
    rss      -> prints the peak resident set size of this process in MiB
    quit

Each peer is a separate process so that no library is imported beside
another (torch never shares a process with kerasish) and so peak RSS is per
workload. The workloads are defined once per peer below, with the same shapes,
optimizer (Adam, lr 1e-3, epsilon 1e-7 as Keras) and loss.
"""
import os
import resource
import sys
import time

THREADS = os.environ.get("BENCH_THREADS", "2")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = THREADS
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=true "
                      f"intra_op_parallelism_threads={THREADS}")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402  (after the thread pins)

VOCAB, EMBED, LENGTH = 20000, 128, 80

# workload -> (kind, batch, extra)
WORKLOADS = {
    "tiny": ("dense", 32, {"sizes": (32, 10)}),
    "mlp": ("dense", 128, {"sizes": (784, 512, 512, 10)}),
    "bn_mlp": ("bn", 256, {"sizes": (784, 256, 256, 10)}),
    "mnist_cnn": ("cnn", 128, {}),
    "imdb_lstm": ("lstm", 64, {"units": 128, "dropout": 0.0}),
    "imdb_lstm_dropout": ("lstm", 64, {"units": 32, "dropout": 0.2}),
}


def make_data(workload):
    """The one batch every peer trains on (same seed, same arrays)."""
    kind, batch, extra = WORKLOADS[workload]
    rng = np.random.default_rng(0)
    if kind in ("dense", "bn"):
        sizes = extra["sizes"]
        x = rng.normal(size=(batch, sizes[0])).astype("float32")
        y = rng.integers(0, sizes[-1], batch).astype("int64")
    elif kind == "cnn":
        x = rng.random((batch, 28, 28, 1)).astype("float32")
        y = rng.integers(0, 10, batch).astype("int64")
    else:
        x = rng.integers(1, VOCAB, (batch, LENGTH)).astype("int32")
        y = rng.integers(0, 2, (batch, 1)).astype("float32")
    return x, y


# kerasish and Keras share one model definition (same API) -----------------------------
def keras_model(keras, workload, jit_compile="auto"):
    """The workload as a compiled Keras-3-API model (kerasish or real Keras)."""
    kind, _, extra = WORKLOADS[workload]
    layers = keras.layers
    if kind == "dense":
        sizes = extra["sizes"]
        body = [layers.Dense(n, activation="relu") for n in sizes[1:-1]]
        model = keras.Sequential([keras.Input((sizes[0],))] + body + [layers.Dense(sizes[-1])])
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif kind == "bn":
        sizes = extra["sizes"]
        body = []
        for n in sizes[1:-1]:
            body += [layers.Dense(n, activation="relu"), layers.BatchNormalization()]
        model = keras.Sequential([keras.Input((sizes[0],))] + body + [layers.Dense(sizes[-1])])
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif kind == "cnn":
        model = keras.Sequential([
            keras.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
            layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2),
            layers.Dropout(0.25), layers.Flatten(), layers.Dense(128, activation="relu"),
            layers.Dropout(0.5), layers.Dense(10)])
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        model = keras.Sequential([
            keras.Input((LENGTH,), dtype="int32"), layers.Embedding(VOCAB, EMBED),
            layers.LSTM(extra["units"], dropout=extra["dropout"]),
            layers.Dense(1, activation="sigmoid")])
        loss = "binary_crossentropy"
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=loss, jit_compile=jit_compile)
    return model


def kerasish_runner(workload):
    import kerasish as keras
    model = keras_model(keras, workload)
    x, y = make_data(workload)
    model.train_on_batch(x, y)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))

    def run(n):
        for _ in range(n):
            model.train_step(data)
    return run


def kerasish_jit_runner(workload):
    """kerasish's captured step (`compile(jit_compile=True)`), the step `fit` runs."""
    import kerasish as keras
    model = keras_model(keras, workload, jit_compile=True)
    x, y = make_data(workload)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))
    for _ in range(3):  # eager build, traced step, verified replay
        model._captured_train_step(data)

    def run(n):
        for _ in range(n):
            model._captured_train_step(data)
    return run


def kerasjax_runner(workload):
    os.environ["KERAS_BACKEND"] = "jax"
    import keras
    model = keras_model(keras, workload)
    x, y = make_data(workload)
    reps = 64
    xs, ys = np.concatenate([x] * reps), np.concatenate([y] * reps)
    batch = len(x)
    model.fit(xs, ys, batch_size=batch, epochs=1, verbose=0, shuffle=False)  # compiles

    def run(n):
        left = n
        while left > 0:
            k = min(left, reps)
            model.fit(xs[:k * batch], ys[:k * batch], batch_size=batch, epochs=1, verbose=0,
                      shuffle=False)
            left -= k
    return run


def torch_runner(workload):
    import torch
    from torch import nn
    torch.set_num_threads(int(THREADS))
    kind, _, extra = WORKLOADS[workload]
    x, y = make_data(workload)
    if kind in ("dense", "bn"):
        sizes, mods = extra["sizes"], []
        for n_in, n_out in zip(sizes[:-2], sizes[1:-1]):
            mods += [nn.Linear(n_in, n_out), nn.ReLU()]
            if kind == "bn":
                mods.append(nn.BatchNorm1d(n_out, eps=1e-3, momentum=0.01))
        model = nn.Sequential(*mods, nn.Linear(sizes[-2], sizes[-1]))
        xt, yt, loss_fn = torch.from_numpy(x), torch.from_numpy(y), nn.CrossEntropyLoss()
    elif kind == "cnn":
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
                              nn.Linear(9216, 128), nn.ReLU(), nn.Dropout(0.5),
                              nn.Linear(128, 10))
        xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy())
        yt, loss_fn = torch.from_numpy(y), nn.CrossEntropyLoss()
    else:
        rate = extra["dropout"]

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(VOCAB, EMBED)
                self.lstm = nn.LSTM(EMBED, extra["units"], batch_first=True)
                self.out = nn.Linear(extra["units"], 1)

            def forward(self, ids):
                h = self.embed(ids)
                if rate:  # Keras's input dropout: one mask per sequence, shared by all steps
                    keep = (torch.rand(h.shape[0], 1, h.shape[2]) >= rate).to(h.dtype)
                    h = h * keep / (1 - rate)
                _, (last, _) = self.lstm(h)
                return torch.sigmoid(self.out(last[-1]))
        model = Net()
        xt, yt, loss_fn = torch.from_numpy(x.astype("int64")), torch.from_numpy(y), nn.BCELoss()
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)

    def run(n):
        for _ in range(n):
            opt.zero_grad()
            loss = loss_fn(model(xt), yt)
            loss.backward()
            opt.step()
    return run


def numpy_runner(workload):
    """A hand-written numpy step: forward, backward and Adam with no framework at all."""
    kind, batch, extra = WORKLOADS[workload]
    if kind not in ("dense", "bn"):
        raise SystemExit(f"no numpy step for {workload}")
    x, y = make_data(workload)
    sizes = extra["sizes"]
    rng = np.random.default_rng(1)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        limit = np.sqrt(6 / (n_in + n_out))
        params += [rng.uniform(-limit, limit, (n_in, n_out)).astype("float32"),
                   np.zeros(n_out, "float32")]
    n_hidden = len(sizes) - 2
    if kind == "bn":
        for _ in range(n_hidden):
            params += [np.ones(sizes[1], "float32"), np.zeros(sizes[1], "float32")]
    moments = [np.zeros_like(p) for p in params]
    velocities = [np.zeros_like(p) for p in params]
    onehot = np.eye(sizes[-1], dtype="float32")[y]
    state = {"t": 0}
    eps_bn = np.float32(1e-3)

    def step():
        grads = [None] * len(params)
        h, cache = x, []
        for i in range(n_hidden):
            w, b = params[2 * i], params[2 * i + 1]
            z = h @ w
            z += b
            np.maximum(z, 0, out=z)
            if kind == "bn":
                gamma, beta = params[2 * len(sizes) - 2 + 2 * i], params[2 * len(sizes) - 1 + 2 * i]
                mean = z.mean(axis=0)
                zc = z - mean
                inv = 1 / np.sqrt((zc * zc).mean(axis=0) + eps_bn)
                xhat = zc * inv
                cache.append((h, z, xhat, inv))
                h = xhat * gamma + beta
            else:
                cache.append((h, z))
                h = z
        out_w = 2 * n_hidden
        logits = h @ params[out_w] + params[out_w + 1]
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs = e / e.sum(axis=1, keepdims=True)
        g = (probs - onehot) / np.float32(batch)
        grads[out_w] = h.T @ g
        grads[out_w + 1] = g.sum(axis=0)
        g = g @ params[out_w].T
        for i in reversed(range(n_hidden)):
            if kind == "bn":
                h_in, z, xhat, inv = cache[i]
                gi = 2 * len(sizes) - 2 + 2 * i
                grads[gi] = (g * xhat).sum(axis=0)
                grads[gi + 1] = g.sum(axis=0)
                gx = g * params[gi]
                g = inv / np.float32(batch) * (batch * gx - gx.sum(axis=0)
                                               - xhat * (gx * xhat).sum(axis=0))
            else:
                h_in, z = cache[i]
            g *= z > 0
            grads[2 * i] = h_in.T @ g
            grads[2 * i + 1] = g.sum(axis=0)
            if i:
                g = g @ params[2 * i].T
        state["t"] += 1
        t = state["t"]
        alpha = np.float32(1e-3 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t))
        for p, gr, m, v in zip(params, grads, moments, velocities):
            m += (gr - m) * np.float32(0.1)
            v += (gr * gr - v) * np.float32(0.001)
            p -= m * alpha / (np.sqrt(v) + np.float32(1e-7))

    def run(n):
        for _ in range(n):
            step()
    return run


RUNNERS = {"kerasish": kerasish_runner, "kerasish_jit": kerasish_jit_runner,
           "kerasjax": kerasjax_runner,
           "torch": torch_runner, "numpy": numpy_runner}


def main():
    peer, workload = sys.argv[1], sys.argv[2]
    run = RUNNERS[peer](workload)
    run(3)  # warm-up: caches, allocator, lazy imports
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words[0] == "time":
            n = int(words[1])
            start, cpu = time.perf_counter(), time.process_time()
            run(n)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            print(f"{1000 * wall / n:.4f} {1000 * cpu / n:.4f}", flush=True)
        elif words[0] == "rss":
            print(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}", flush=True)


if __name__ == "__main__":
    main()
