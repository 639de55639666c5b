"""Transformer training steps: kerasish vs PyTorch's nn.MultiheadAttention / nn.TransformerEncoderLayer.

    python benchmarks/bench_transformer.py [--steps 5] [--rounds 5] [--threads 1]

Workloads (CPU, Adam, one training step = forward, backward, update):
  * text: the keras-io "Text classification with Transformer" model (token +
    position embedding of 20,000 x 32, one block with 2 heads, feed-forward
    32, sequence 200, batch 32, dropout 0.1, pooled, Dense 20, Dense 2).
    Keras's MultiHeadAttention(key_dim=32) has 2 heads of size 32; PyTorch's
    nn.MultiheadAttention(32, 2) has 2 heads of size 16 (its head size is
    embed_dim / heads), so kerasish does more projection and attention work.
  * encoder: 4 post-norm encoder layers, model width 256, 8 heads of 32,
    feed-forward 1024, ReLU, dropout 0.1, sequence 128, batch 32, on float
    inputs, mean-pooled into a 2-way classifier.
Each round times `--steps` steps of kerasish, then of PyTorch (alternating,
so both see the same machine load); the table gives the median over rounds
of the per-step time. Without torch installed (the `bench` extra), only
kerasish is timed.
"""
import argparse
import os
import statistics
import time


def _arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    return parser.parse_args()


if __name__ == "__main__":
    ARGS = _arguments()
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = str(ARGS.threads)  # before numpy/torch load their BLAS

import numpy as np  # noqa: E402

TEXT = dict(vocab=20000, maxlen=200, embed=32, heads=2, ff=32, batch=32)
ENCODER = dict(layers=4, embed=256, heads=8, ff=1024, seq=128, batch=32)


def _text_data():
    rng = np.random.default_rng(0)
    x = rng.integers(0, TEXT["vocab"], (TEXT["batch"], TEXT["maxlen"])).astype("int32")
    return x, rng.integers(0, 2, TEXT["batch"]).astype("int32")


def _encoder_data():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(ENCODER["batch"], ENCODER["seq"], ENCODER["embed"])).astype("float32")
    return x, rng.integers(0, 2, ENCODER["batch"]).astype("int32")


def _kerasish_block(keras, layers, embed, heads, key_dim, ff, epsilon):
    class TransformerBlock(layers.Layer):
        def __init__(self):
            super().__init__()
            self.att = layers.MultiHeadAttention(num_heads=heads, key_dim=key_dim)
            self.ffn = keras.Sequential([layers.Dense(ff, activation="relu"),
                                         layers.Dense(embed)])
            self.layernorm1 = layers.LayerNormalization(epsilon=epsilon)
            self.layernorm2 = layers.LayerNormalization(epsilon=epsilon)
            self.dropout1, self.dropout2 = layers.Dropout(0.1), layers.Dropout(0.1)

        def call(self, inputs, training=None):
            attn = self.att(inputs, inputs, training=training)
            out1 = self.layernorm1(inputs + self.dropout1(attn, training=training))
            return self.layernorm2(out1 + self.dropout2(self.ffn(out1), training=training))
    return TransformerBlock()


def kerasish_text_step():
    import kerasish as keras
    from kerasish import layers, ops

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self):
            super().__init__()
            self.token_emb = layers.Embedding(TEXT["vocab"], TEXT["embed"])
            self.pos_emb = layers.Embedding(TEXT["maxlen"], TEXT["embed"])

        def call(self, x):
            return self.token_emb(x) + self.pos_emb(ops.arange(0, ops.shape(x)[-1], 1))

    inputs = layers.Input(shape=(TEXT["maxlen"],))
    x = TokenAndPositionEmbedding()(inputs)
    x = _kerasish_block(keras, layers, TEXT["embed"], TEXT["heads"], TEXT["embed"], TEXT["ff"],
                        1e-6)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    model = keras.Model(inputs, layers.Dense(2, activation="softmax")(x))
    return _compiled_step(keras, model, _text_data())


def kerasish_encoder_step():
    import kerasish as keras
    from kerasish import layers
    e = ENCODER
    inputs = layers.Input(shape=(e["seq"], e["embed"]))
    x = inputs
    for _ in range(e["layers"]):
        x = _kerasish_block(keras, layers, e["embed"], e["heads"], e["embed"] // e["heads"],
                            e["ff"], 1e-5)(x)
    x = layers.GlobalAveragePooling1D()(x)
    model = keras.Model(inputs, layers.Dense(2, activation="softmax")(x))
    return _compiled_step(keras, model, _encoder_data())


def _compiled_step(keras, model, data):
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.train_on_batch(*data)
    tensors = tuple(keras.ops.convert_to_tensor(a) for a in data)
    return lambda: model.train_step(tensors)


def torch_text_step(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_emb = nn.Embedding(TEXT["vocab"], TEXT["embed"])
            self.pos_emb = nn.Embedding(TEXT["maxlen"], TEXT["embed"])
            self.att = nn.MultiheadAttention(TEXT["embed"], TEXT["heads"], batch_first=True)
            self.ffn = nn.Sequential(nn.Linear(TEXT["embed"], TEXT["ff"]), nn.ReLU(),
                                     nn.Linear(TEXT["ff"], TEXT["embed"]))
            self.norm1 = nn.LayerNorm(TEXT["embed"], eps=1e-6)
            self.norm2 = nn.LayerNorm(TEXT["embed"], eps=1e-6)
            self.drop = nn.Dropout(0.1)
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(TEXT["embed"], 20), nn.ReLU(),
                                      nn.Dropout(0.1), nn.Linear(20, 2))

        def forward(self, x):
            h = self.token_emb(x) + self.pos_emb(torch.arange(x.shape[-1]))
            attn, _ = self.att(h, h, h, need_weights=False)
            out1 = self.norm1(h + self.drop(attn))
            out2 = self.norm2(out1 + self.drop(self.ffn(out1)))
            return self.head(out2.mean(dim=1))

    x, y = _text_data()
    return _torch_step(torch, Net(), torch.from_numpy(x.astype("int64")),
                       torch.from_numpy(y.astype("int64")))


def torch_encoder_step(torch):
    nn = torch.nn
    e = ENCODER

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(e["embed"], e["heads"], e["ff"], dropout=0.1,
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, e["layers"], enable_nested_tensor=False)
            self.head = nn.Linear(e["embed"], 2)

        def forward(self, x):
            return self.head(self.encoder(x).mean(dim=1))

    x, y = _encoder_data()
    return _torch_step(torch, Net(), torch.from_numpy(x), torch.from_numpy(y.astype("int64")))


def _torch_step(torch, net, x, y):
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
    step()
    return step


def _per_step_ms(step, steps):
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return 1000 * (time.perf_counter() - start) / steps


def compare(ours, theirs, steps, rounds):
    """Median per-step ms of alternating rounds: (kerasish, torch or None)."""
    mine, other = [], []
    for _ in range(rounds):
        mine.append(_per_step_ms(ours, steps))
        if theirs is not None:
            other.append(_per_step_ms(theirs, steps))
    return statistics.median(mine), (statistics.median(other) if other else None)


def main(args):
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
        print("torch is not installed (pip install '.[bench]'): timing kerasish only")
    rows = []
    for name, ours, theirs in (("keras-io text transformer (embed 32, 2 heads, ff 32, "
                                "seq 200, batch 32)", kerasish_text_step, torch_text_step),
                               ("4-layer encoder (embed 256, 8 heads, ff 1024, seq 128, "
                                "batch 32)", kerasish_encoder_step, torch_encoder_step)):
        mine, other = compare(ours(), theirs(torch) if torch else None, args.steps, args.rounds)
        ratio = f"{mine / other:.2f}x" if other else "-"
        rows.append(f"| {name} | {mine:.1f} | {other:.1f} | {ratio} |" if other else
                    f"| {name} | {mine:.1f} | - | - |")
    print(f"threads={args.threads}, steps per round={args.steps}, rounds={args.rounds}")
    print("| workload | kerasish (ms/step) | PyTorch (ms/step) | kerasish / PyTorch |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main(ARGS)
