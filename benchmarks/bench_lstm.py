"""The classic imdb_lstm training step: kerasish vs PyTorch's nn.LSTM (CPU, 2 threads).

    python benchmarks/bench_lstm.py [--steps 20]

Workload: Embedding(20000, 128) -> LSTM(128) -> Dense(1, sigmoid), sequence
length 80, batch 64, Adam, binary cross-entropy. Prints median ms per step.
"""
import argparse

import numpy as np

from bench_models import median_ms

VOCAB, EMBED, UNITS, LENGTH, BATCH = 20000, 128, 128, 80, 64


def batch_data():
    rng = np.random.default_rng(0)
    x = rng.integers(1, VOCAB, (BATCH, LENGTH)).astype("int32")
    y = rng.integers(0, 2, (BATCH, 1)).astype("float32")
    return x, y


def kerasish_step():
    import kerasish as keras
    from kerasish import layers
    model = keras.Sequential([keras.Input((LENGTH,), dtype="int32"),
                              layers.Embedding(VOCAB, EMBED), layers.LSTM(UNITS),
                              layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy")
    x, y = batch_data()
    model.train_on_batch(x, y)
    data = (keras.ops.convert_to_tensor(x), keras.ops.convert_to_tensor(y))
    return lambda: model.train_step(data)


def torch_step():
    import torch
    torch.set_num_threads(2)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(VOCAB, EMBED)
            self.lstm = torch.nn.LSTM(EMBED, UNITS, batch_first=True)
            self.out = torch.nn.Linear(UNITS, 1)

        def forward(self, x):
            _, (h, _) = self.lstm(self.embed(x))
            return torch.sigmoid(self.out(h[-1]))

    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.BCELoss()
    x, y = batch_data()
    x, y = torch.from_numpy(x.astype("int64")), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    ours = median_ms(kerasish_step(), args.steps, warmup=3)
    theirs = median_ms(torch_step(), args.steps, warmup=3)
    print("| workload | kerasish (ms/step) | PyTorch (ms/step) | ratio |")
    print("|---|---|---|---|")
    print(f"| imdb_lstm (T=80, batch 64, LSTM 128) | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f}x |")


if __name__ == "__main__":
    main()
