"""Masks through merge layers, as Keras 3.15.1 (keras-io probes, probe12 session).

Keras 3.15.1 keeps a step when any input keeps it (Add, Subtract, Average: an OR of
the masks, none when an input is unmasked); Maximum and Minimum let a masked step
take the other inputs' values; Multiply counts a masked step as 1 and gives 0
where every input is masked; Concatenate broadcasts each mask to its input (an
unmasked input: all True), joins them along `axis` and keeps a step when any
entry of the last axis is kept. Expected lines: the program of `_lines()` under
Keras 3.15.1 (TF backend), probe12's mm2.py.
"""
import ast
import re

import numpy as np

import kerasish as keras
from kerasish import layers, ops

KERAS_LINES = [
    'Add 2 [-10.0, -8.0, -10.0, -8.0, -14.0, -12.0, -14.0, -12.0, -2.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Add 3 [-17.0, -14.0, -17.0, -14.0, -9.0, -6.0, -21.0, -18.0, -9.0, -6.0] [[True, True, True, False], [True, True, True, True]]',
    'Add 2 [-4.5, -3.5, -2.5, -1.5, -6.5, -5.5, -6.5, -5.5, -0.5, 0.5] None',
    'Add 2 [-4.5, -3.5, -6.5, -5.5, -6.5, -5.5, -6.5, -5.5, -0.5, 0.5] None',
    'Multiply 2 [25.0, 16.0, -3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Multiply 3 [25.0, 16.0, -3.0, -2.0, 5.0, 6.0, 0.0, 0.0, 1.0, 0.0] [[True, True, True, False], [True, True, True, True]]',
    'Multiply 2 [-2.5, -2.0, -1.5, -1.0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.0] None',
    'Multiply 2 [-2.5, -2.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -0.5, 0.0] None',
    'Maximum 2 [-5.0, -4.0, -3.0, -2.0, -7.0, -6.0, -7.0, -6.0, -1.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Maximum 3 [-5.0, -4.0, -3.0, -2.0, 5.0, 6.0, -7.0, -6.0, -1.0, 0.0] [[True, True, True, False], [True, True, True, True]]',
    'Maximum 2 [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5] None',
    'Maximum 2 [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5] None',
    'Minimum 2 [-5.0, -4.0, -3.0, -2.0, -7.0, -6.0, -7.0, -6.0, -1.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Minimum 3 [-5.0, -4.0, -3.0, -2.0, 5.0, 6.0, -7.0, -6.0, -1.0, 0.0] [[True, True, True, False], [True, True, True, True]]',
    'Minimum 2 [-5.0, -4.0, -3.0, -2.0, 0.5, 0.5, 0.5, 0.5, -1.0, 0.0] None',
    'Minimum 2 [-5.0, -4.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -1.0, 0.0] None',
    'Average 2 [-5.0, -4.0, -5.0, -4.0, -7.0, -6.0, -7.0, -6.0, -1.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Average 3 [-5.666666507720947, -4.666666507720947, -5.666666507720947, -4.666666507720947, -3.0, -2.0, -7.0, -6.0, -3.0, -2.0] [[True, True, True, False], [True, True, True, True]]',
    'Average 2 [-2.25, -1.75, -1.25, -0.75, -3.25, -2.75, -3.25, -2.75, -0.25, 0.25] None',
    'Average 2 [-2.25, -1.75, -3.25, -2.75, -3.25, -2.75, -3.25, -2.75, -0.25, 0.25] None',
    'Subtract 2 [0.0, 0.0, 4.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] [[True, True, False, False], [True, True, True, False]]',
    'Subtract 2 [-5.5, -4.5, -3.5, -2.5, -7.5, -6.5, -7.5, -6.5, -1.5, -0.5] None',
    'Subtract 2 [5.5, 4.5, 7.5, 6.5, 7.5, 6.5, 7.5, 6.5, 1.5, 0.5] None',
    'Concatenate 2 [-5.0, -4.0, -5.0, -4.0, -3.0, -2.0, -7.0, -6.0, -7.0, -6.0] [[True, True, False, False], [True, True, True, False]]',
    'Concatenate 3 [-5.0, -4.0, -5.0, -4.0, -7.0, -6.0, -3.0, -2.0, -7.0, -6.0] [[True, True, True, False], [True, True, True, True]]',
    'Concatenate 2 [-5.0, -4.0, 0.5, 0.5, -3.0, -2.0, 0.5, 0.5, -7.0, -6.0] [[True, True, True, True], [True, True, True, True]]',
    'Concatenate 2 [0.5, 0.5, -5.0, -4.0, 0.5, 0.5, -7.0, -6.0, 0.5, 0.5] [[True, True, True, True], [True, True, True, True]]',
]
KERAS_CONCAT_AXIS1_MASK = [[True, True, False, False, True, False, False, False], [True, False, False, False, True, True, True, False]]


def _embedded():
    emb = layers.Embedding(10, 2, mask_zero=True)
    emb.build((None, 4))
    emb.set_weights([np.arange(20, dtype="float32").reshape(10, 2) - 7])
    return [emb(np.array(ids)) for ids in (
        [[1, 2, 0, 0], [3, 0, 0, 0]], [[1, 0, 0, 0], [3, 4, 5, 0]], [[0, 0, 6, 0], [0, 0, 0, 9]])]


def _lines():
    ea, eb, ec = _embedded()
    plain = ops.convert_to_tensor(np.full((2, 4, 2), 0.5, "float32"))
    lines = []
    for cls in [layers.Add, layers.Multiply, layers.Maximum, layers.Minimum, layers.Average,
                layers.Subtract, layers.Concatenate]:
        for ins in ([ea, eb], [ea, eb, ec], [ea, plain], [plain, eb]):
            if cls is layers.Subtract and len(ins) != 2:
                continue
            out = cls()(ins)
            mask = getattr(out, "_keras_mask", None)
            lines.append((cls.__name__, len(ins), np.asarray(out).ravel().tolist()[:10],
                          None if mask is None else np.asarray(mask).tolist()))
    return lines


def _parse(line):
    """`Name count [values] mask` as the Keras program printed it."""
    name, count, rest = line.split(" ", 2)
    values, mask = re.fullmatch(r"(\[[^\]]*\]) (None|\[\[.*\]\])", rest).groups()
    return name, int(count), ast.literal_eval(values), ast.literal_eval(mask)


def test_merge_layers_combine_values_and_masks_as_keras():
    for got, line in zip(_lines(), KERAS_LINES, strict=True):
        name, count, values, mask = _parse(line)
        assert (got[0], got[1]) == (name, count)
        np.testing.assert_allclose(got[2], values, rtol=1e-6, err_msg=line)
        assert got[3] == mask, line


def test_concatenate_along_time_joins_the_masks():
    ea, eb, _ = _embedded()
    out = layers.Concatenate(axis=1)([ea, eb])
    assert np.asarray(out._keras_mask).tolist() == KERAS_CONCAT_AXIS1_MASK


def test_a_functional_graph_pools_with_the_merged_masks():
    """The symbolic path (compute_mask) gives the same masks: Keras's pooled values
    (mergemask.py)."""
    a = keras.Input((4,), dtype="int32")
    b = keras.Input((4,), dtype="int32")
    emb = layers.Embedding(10, 2, mask_zero=True)
    ea, eb = emb(a), emb(b)
    emb.set_weights([np.arange(20, dtype="float32").reshape(10, 2)])
    pool = layers.GlobalAveragePooling1D
    outs = {"add": pool()(layers.Add()([ea, eb])), "min": pool()(layers.Minimum()([ea, eb])),
            "mul": pool()(layers.Multiply()([ea, eb])),
            "concat": pool()(layers.Concatenate()([ea, eb])),
            "concat1": pool()(layers.Concatenate(axis=1)([ea, eb]))}
    got = keras.Model([a, b], outs).predict(
        [np.array([[1, 2, 0, 0], [3, 0, 0, 0]]), np.array([[1, 0, 0, 0], [3, 4, 5, 0]])],
        verbose=0)
    expected = {"add": [[4.0, 6.0], [10.0, 12.0]], "min": [[3.0, 4.0], [8.0, 9.0]],
                "mul": [[4.0, 7.0], [18.0, 23.0]],
                "concat": [[3.0, 4.0, 1.0, 2.0], [2.0, 3.0, 8.0, 9.0]],
                "concat1": [[2.666670083999634, 3.666670083999634], [7.5, 8.5]]}
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, err_msg=key)
