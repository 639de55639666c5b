"""Differential recipes: one case list, one way to run a case, two libraries.

`make_fixtures.py` runs every case with real Keras (TensorFlow backend) and
stores what came out; `test_differential.py` runs the same recipe with
kerasish and compares. This module imports neither library: the caller passes
`K` (the `keras` or `kerasish` module) and `GradientTape` (tf's or kerasish's).

A case is a JSON-friendly dict; its `id` names it in the fixtures. All random
data (inputs, masks, weights, cotangents) comes from `numpy.random.default_rng`
seeded with the case's `seed`, so a failure reproduces from the id alone.
"""
import itertools

import numpy as np

FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16")


# Case generation -------------------------------------------------------------
def _case(group, name, seed, **fields):
    fields.update(group=group, seed=seed)
    fields["id"] = f"{group}/{name}"
    return fields


def _layer(name, layer, kwargs, shape, seed, **extra):
    return _case("layer", name, seed, layer=layer, kwargs=kwargs, shape=list(shape), **extra)


def _grid(**axes):
    keys = list(axes)
    for values in itertools.product(*(axes[k] for k in keys)):
        yield dict(zip(keys, values))


def _tag(d):
    return ",".join(f"{k}={v}" for k, v in d.items())


def dense_cases():
    out = []
    for i, ax in enumerate(_grid(activation=[None, "relu", "tanh"], use_bias=[True, False],
                                 rank=[2, 3])):
        shape = (3, 4) if ax["rank"] == 2 else (2, 3, 4)
        out.append(_layer(f"Dense[{_tag(ax)}]", "Dense",
                          {"units": 5, "activation": ax["activation"],
                           "use_bias": ax["use_bias"]}, shape, 100 + i))
    for dtype in ("bool", "int32", "float16", "float64", "bfloat16"):
        out.append(_layer(f"Dense[input={dtype}]", "Dense", {"units": 3}, (4, 5), 130,
                          input_dtype=dtype))
    for policy in ("float64", "mixed_float16", "mixed_bfloat16"):
        out.append(_layer(f"Dense[policy={policy}]", "Dense", {"units": 3, "activation": "relu"},
                          (4, 5), 140, policy=policy))
    for freeze in ("before_build", "after_build"):
        out.append(_layer(f"Dense[freeze={freeze}]", "Dense", {"units": 3}, (4, 5), 150,
                          freeze=freeze))
    return out


def conv_cases():
    out = []
    seed = 200
    for ax in _grid(data_format=["channels_last", "channels_first"], groups=[1, 2],
                    strides=[1, 2], padding=["valid", "same"], dilation=[1, 2]):
        if ax["strides"] > 1 and ax["dilation"] > 1:
            continue
        seed += 1
        # 7x5 spatial: the output width never equals `filters` (the Keras-TF bias quirk
        # has its own cases below, see docs/fidelity.md).
        shape = (2, 7, 5, 4) if ax["data_format"] == "channels_last" else (2, 4, 7, 5)
        out.append(_layer(f"Conv2D[{_tag(ax)}]", "Conv2D",
                          {"filters": 6, "kernel_size": 3, "strides": ax["strides"],
                           "padding": ax["padding"], "dilation_rate": ax["dilation"],
                           "groups": ax["groups"], "data_format": ax["data_format"]},
                          shape, seed))
    for ax in _grid(data_format=["channels_last", "channels_first"], groups=[1, 2],
                    padding=["valid", "same", "causal"], strides=[1, 2], dilation=[1, 2]):
        if ax["strides"] > 1 and ax["dilation"] > 1:
            continue
        if ax["padding"] == "causal" and ax["data_format"] == "channels_first":
            continue
        seed += 1
        shape = (2, 9, 4) if ax["data_format"] == "channels_last" else (2, 4, 9)
        # TF on CPU runs channels_first Conv1D only grouped: only there may the output
        # length equal `filters` (the bias quirk); elsewhere 6 filters avoid it.
        out.append(_layer(f"Conv1D[{_tag(ax)}]", "Conv1D",
                          {"filters": 4 if ax["groups"] == 2 else 6, "kernel_size": 3,
                           "strides": ax["strides"],
                           "padding": ax["padding"], "dilation_rate": ax["dilation"],
                           "groups": ax["groups"], "data_format": ax["data_format"],
                           "activation": "relu"}, shape, seed))
    for ax in _grid(data_format=["channels_last", "channels_first"], strides=[1, 2],
                    padding=["valid", "same"], output_padding=[None, 1]):
        if ax["output_padding"] is not None and ax["strides"] == 1:
            continue
        seed += 1
        shape = (2, 5, 6, 3) if ax["data_format"] == "channels_last" else (2, 3, 5, 6)
        out.append(_layer(f"Conv2DTranspose[{_tag(ax)}]", "Conv2DTranspose",
                          {"filters": 4, "kernel_size": 3, "strides": ax["strides"],
                           "padding": ax["padding"], "output_padding": ax["output_padding"],
                           "data_format": ax["data_format"]}, shape, seed))
    for ax in _grid(data_format=["channels_last", "channels_first"], depth_multiplier=[1, 2],
                    strides=[1, 2], padding=["valid", "same"]):
        seed += 1
        shape = (2, 6, 5, 3) if ax["data_format"] == "channels_last" else (2, 3, 6, 5)
        out.append(_layer(f"DepthwiseConv2D[{_tag(ax)}]", "DepthwiseConv2D",
                          {"kernel_size": 3, "strides": ax["strides"], "padding": ax["padding"],
                           "depth_multiplier": ax["depth_multiplier"],
                           "data_format": ax["data_format"]}, shape, seed))
        out.append(_layer(f"SeparableConv2D[{_tag(ax)}]", "SeparableConv2D",
                          {"filters": 4, "kernel_size": 3, "strides": ax["strides"],
                           "padding": ax["padding"], "depth_multiplier": ax["depth_multiplier"],
                           "data_format": ax["data_format"]}, shape, seed))
    for ax in _grid(groups=[2], activation=[None, "relu"]):  # TF-CPU runs grouped only
        seed += 1  # channels_first with output width == filters: Keras-TF's bias quirk
        out.append(_layer(f"Conv2D[channels_first,width==filters,{_tag(ax)}]", "Conv2D",
                          {"filters": 4, "kernel_size": 3, "groups": ax["groups"],
                           "activation": ax["activation"], "data_format": "channels_first"},
                          (2, 4, 6, 6), seed))
    for dilation in (2,):
        for name in ("DepthwiseConv2D", "SeparableConv2D"):
            kw = {"kernel_size": 3, "dilation_rate": dilation}
            if name == "SeparableConv2D":
                kw["filters"] = 4
            out.append(_layer(f"{name}[dilation={dilation}]", name, kw, (2, 8, 8, 3), 290))
    for dtype in ("bool", "int32", "float16", "float64"):
        out.append(_layer(f"Conv2D[input={dtype}]", "Conv2D", {"filters": 3, "kernel_size": 2},
                          (2, 5, 5, 2), 295, input_dtype=dtype))
    for policy in ("mixed_float16", "float64"):
        out.append(_layer(f"Conv2D[policy={policy}]", "Conv2D",
                          {"filters": 3, "kernel_size": 2}, (2, 5, 5, 2), 296, policy=policy))
        out.append(_layer(f"Conv1D[policy={policy}]", "Conv1D",
                          {"filters": 3, "kernel_size": 2}, (2, 5, 2), 297, policy=policy))
    out.append(_layer("Conv2D[freeze=before_build]", "Conv2D", {"filters": 3, "kernel_size": 2},
                      (2, 5, 5, 2), 298, freeze="before_build"))
    return out


def pooling_cases():
    out = []
    seed = 400
    for name in ("MaxPooling2D", "AveragePooling2D"):
        for ax in _grid(pool_size=[2, 3], strides=[None, 1], padding=["valid", "same"],
                        data_format=["channels_last", "channels_first"]):
            seed += 1
            shape = (2, 7, 6, 3) if ax["data_format"] == "channels_last" else (2, 3, 7, 6)
            out.append(_layer(f"{name}[{_tag(ax)}]", name, dict(ax), shape, seed))
    for name in ("MaxPooling1D", "AveragePooling1D"):
        for ax in _grid(pool_size=[2, 3], strides=[None, 1], padding=["valid", "same"],
                        data_format=["channels_last", "channels_first"]):
            seed += 1
            shape = (2, 7, 3) if ax["data_format"] == "channels_last" else (2, 3, 7)
            out.append(_layer(f"{name}[{_tag(ax)}]", name, dict(ax), shape, seed))
    for name, shape_l, shape_f in (("GlobalAveragePooling1D", (2, 5, 3), (2, 3, 5)),
                                   ("GlobalMaxPooling1D", (2, 5, 3), (2, 3, 5)),
                                   ("GlobalAveragePooling2D", (2, 4, 5, 3), (2, 3, 4, 5)),
                                   ("GlobalMaxPooling2D", (2, 4, 5, 3), (2, 3, 4, 5))):
        for ax in _grid(data_format=["channels_last", "channels_first"], keepdims=[False, True]):
            seed += 1
            shape = shape_l if ax["data_format"] == "channels_last" else shape_f
            out.append(_layer(f"{name}[{_tag(ax)}]", name, dict(ax), shape, seed))
    for mask in ("post", "pre", "all_masked_row"):
        out.append(_layer(f"GlobalAveragePooling1D[mask={mask}]", "GlobalAveragePooling1D", {},
                          (3, 5, 2), 480, mask=mask))
    return out


def normalization_cases():
    out = []
    seed = 500
    for ax in _grid(axis=[-1, 1], center=[True, False], scale=[True, False],
                    training=[False, True]):
        seed += 1
        out.append(_layer(f"BatchNormalization[{_tag(ax)}]", "BatchNormalization",
                          {"axis": ax["axis"], "center": ax["center"], "scale": ax["scale"],
                           "momentum": 0.9}, (6, 3, 4), seed, training=ax["training"]))
    for freeze in ("before_build", "after_build"):
        out.append(_layer(f"BatchNormalization[freeze={freeze},training=True]",
                          "BatchNormalization", {}, (6, 4), 530, freeze=freeze, training=True))
    out.append(_layer("BatchNormalization[mask=post,training=True]", "BatchNormalization", {},
                      (3, 5, 2), 531, mask="post", training=True))
    for policy in ("mixed_float16", "float64"):
        out.append(_layer(f"BatchNormalization[policy={policy},training=True]",
                          "BatchNormalization", {}, (6, 4), 532, policy=policy, training=True))
    for ax in _grid(axis=[-1, [1, 2]], center=[True, False], scale=[True, False],
                    rms_scaling=[False, True]):
        if ax["rms_scaling"] and not ax["scale"]:
            continue
        seed += 1
        out.append(_layer(f"LayerNormalization[{_tag(ax)}]", "LayerNormalization", dict(ax),
                          (2, 3, 4), seed))
    for policy in ("mixed_float16",):
        out.append(_layer(f"LayerNormalization[policy={policy}]", "LayerNormalization", {},
                          (2, 3, 4), 560, policy=policy))
    for ax in _grid(groups=[1, 2, 4], axis=[-1, 1]):
        seed += 1
        shape = (2, 3, 4) if ax["axis"] == -1 else (2, 4, 3)
        out.append(_layer(f"GroupNormalization[{_tag(ax)}]", "GroupNormalization", dict(ax),
                          shape, seed))
    return out


def activation_cases():
    out = []
    cases = [("ReLU", {}), ("ReLU", {"max_value": 0.5}), ("ReLU", {"negative_slope": 0.1}),
             ("ReLU", {"threshold": 0.2}), ("ReLU", {"max_value": 1.0, "negative_slope": 0.2,
                                                     "threshold": -0.1}),
             ("LeakyReLU", {}), ("LeakyReLU", {"negative_slope": 0.01}),
             ("ELU", {}), ("ELU", {"alpha": 0.5}),
             ("PReLU", {}), ("PReLU", {"shared_axes": [1]}),
             ("Softmax", {}), ("Softmax", {"axis": 1}),
             ("Activation", {"activation": "gelu"}), ("Activation", {"activation": "swish"}),
             ("Activation", {"activation": "softplus"}), ("Activation", {"activation": "selu"}),
             ("Activation", {"activation": "hard_sigmoid"}),
             ("Activation", {"activation": "log_softmax"}),
             ("Identity", {}), ("Dropout", {"rate": 0.5}), ("Dropout", {"rate": 0.0}),
             ("Lambda", {})]
    for i, (name, kwargs) in enumerate(cases):
        for training in (False, True):
            if name == "Dropout" and training and kwargs["rate"]:
                continue  # random mask: not comparable
            out.append(_layer(f"{name}[{_tag(kwargs)},training={training}]", name, kwargs,
                              (3, 4, 5), 600 + i, training=training))
    out.append(_layer("Softmax[mask]", "Softmax", {}, (3, 5), 650, mask="post"))
    for dtype in ("float16", "float64"):
        out.append(_layer(f"PReLU[input={dtype}]", "PReLU", {}, (3, 4), 651, input_dtype=dtype))
    return out


def reshaping_cases():
    out = []
    items = [
        ("Flatten", {}, (2, 3, 4)), ("Flatten", {"data_format": "channels_first"}, (2, 3, 4, 2)),
        ("Reshape", {"target_shape": [4, 3]}, (2, 3, 4)),
        ("Reshape", {"target_shape": [-1, 2]}, (2, 3, 4)),
        ("Permute", {"dims": [2, 1]}, (2, 3, 4)), ("Permute", {"dims": [3, 1, 2]}, (2, 3, 4, 2)),
        ("RepeatVector", {"n": 3}, (2, 4)),
        ("UpSampling1D", {"size": 2}, (2, 3, 4)),
        ("UpSampling2D", {"size": [2, 3]}, (2, 3, 2, 2)),
        ("UpSampling2D", {"size": 2, "data_format": "channels_first"}, (2, 2, 3, 2)),
        ("UpSampling2D", {"size": 2, "interpolation": "bilinear"}, (2, 3, 4, 2)),
        ("Cropping1D", {"cropping": [1, 2]}, (2, 6, 3)),
        ("Cropping2D", {"cropping": [[1, 0], [0, 2]]}, (2, 5, 6, 3)),
        ("Cropping2D", {"cropping": 1, "data_format": "channels_first"}, (2, 3, 5, 6)),
        ("ZeroPadding1D", {"padding": [1, 2]}, (2, 4, 3)),
        ("ZeroPadding2D", {"padding": [[1, 0], [2, 1]]}, (2, 3, 4, 2)),
        ("ZeroPadding2D", {"padding": 1, "data_format": "channels_first"}, (2, 2, 3, 4)),
    ]
    for i, (name, kwargs, shape) in enumerate(items):
        out.append(_layer(f"{name}[{_tag(kwargs)}]", name, kwargs, shape, 700 + i))
    return out


def merging_cases():
    out = []
    for i, name in enumerate(("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum")):
        n = 2 if name == "Subtract" else 3
        out.append(_layer(f"{name}[n={n}]", name, {}, (3, 4), 800 + i, n_inputs=n))
    for axis in (-1, 1):
        out.append(_layer(f"Concatenate[axis={axis}]", "Concatenate", {"axis": axis}, (2, 3, 4),
                          810 + axis, n_inputs=2))
    for i, (axes, normalize) in enumerate(((1, False), (1, True), ([2, 2], False), (2, True))):
        shape = (3, 4) if axes == 1 else (2, 3, 4)
        out.append(_layer(f"Dot[axes={axes},normalize={normalize}]", "Dot",
                          {"axes": axes, "normalize": normalize}, shape, 820 + i, n_inputs=2))
    return out


def _rnn_kwargs(layer, **kw):
    kw = dict(kw)
    kw.setdefault("units", 3)
    if layer == "GRU":
        kw.setdefault("reset_after", True)
    return kw


def recurrent_cases():
    out = []
    seed = 900
    for layer in ("LSTM", "GRU", "SimpleRNN"):
        for ax in _grid(return_sequences=[False, True], go_backwards=[False, True],
                        mask=[None, "post", "pre", "all_masked_row"]):
            seed += 1
            out.append(_layer(f"{layer}[{_tag(ax)}]", layer,
                              _rnn_kwargs(layer, return_sequences=ax["return_sequences"],
                                          go_backwards=ax["go_backwards"]),
                              (3, 5, 4), seed, mask=ax["mask"]))
        for rs in (False, True):
            seed += 1
            out.append(_layer(f"{layer}[return_state,return_sequences={rs}]", layer,
                              _rnn_kwargs(layer, return_state=True, return_sequences=rs),
                              (3, 5, 4), seed, mask="post"))
        for dtype in ("bool", "int32", "float64", "float16"):
            out.append(_layer(f"{layer}[input={dtype}]", layer, _rnn_kwargs(layer), (3, 5, 4),
                              950, input_dtype=dtype))
        for policy in ("mixed_float16", "float64"):
            out.append(_layer(f"{layer}[policy={policy}]", layer,
                              _rnn_kwargs(layer, return_sequences=True), (3, 5, 4), 951,
                              policy=policy))
        for ax in _grid(go_backwards=[False, True], mask=["post", "pre", "all_masked_row"]):
            seed += 1  # non-zero initial states: their gradients through masked steps
            out.append(_layer(f"{layer}[initial_state,{_tag(ax)}]", layer,
                              _rnn_kwargs(layer, return_sequences=True, return_state=True,
                                          go_backwards=ax["go_backwards"]),
                              (3, 5, 4), seed, mask=ax["mask"], initial_state=True))
        out.append(_layer(f"{layer}[initial_state,activation=relu]", layer,
                          _rnn_kwargs(layer, return_sequences=True, activation="relu"),
                          (3, 5, 4), 957, mask="pre", initial_state=True))
        out.append(_layer(f"{layer}[activation=relu]", layer,
                          _rnn_kwargs(layer, activation="relu", return_sequences=True),
                          (3, 5, 4), 952, mask="post"))
        out.append(_layer(f"{layer}[zero_output_for_mask]", layer,
                          _rnn_kwargs(layer, zero_output_for_mask=True, return_sequences=True),
                          (3, 5, 4), 953, mask="post"))
        out.append(_layer(f"{layer}[use_bias=False]", layer, _rnn_kwargs(layer, use_bias=False),
                          (3, 5, 4), 954))
        out.append(_layer(f"{layer}[freeze=before_build]", layer, _rnn_kwargs(layer), (3, 5, 4),
                          955, freeze="before_build"))
        out.append(_layer(f"{layer}[stateful]", layer, _rnn_kwargs(layer, stateful=True),
                          (3, 5, 4), 956, repeat_call=True))
    out.append(_layer("GRU[reset_after=False]", "GRU", _rnn_kwargs("GRU", reset_after=False,
                                                                  return_sequences=True),
                      (3, 5, 4), 960, mask="post"))
    out.append(_layer("LSTM[unit_forget_bias=False]", "LSTM",
                      _rnn_kwargs("LSTM", unit_forget_bias=False), (3, 5, 4), 961))
    for cell in ("LSTMCell", "GRUCell", "SimpleRNNCell"):
        out.append(_layer(f"RNN[{cell}]", "RNN",
                          {"cell": {"__layer__": cell, "units": 3}, "return_sequences": True},
                          (3, 5, 4), 962, mask="post"))
        out.append(_layer(f"{cell}[step]", cell, {"units": 3}, (3, 4), 963, cell_step=True))
    out.append(_layer("RNN[StackedRNNCells]", "RNN",
                      {"cell": {"__layer__": "StackedRNNCells",
                                "cells": [{"__layer__": "LSTMCell", "units": 3},
                                          {"__layer__": "GRUCell", "units": 2}]}},
                      (3, 5, 4), 964))
    for inner in ("LSTM", "GRU", "SimpleRNN"):
        for ax in _grid(merge_mode=["concat", "sum", "ave", "mul", None],
                        return_sequences=[True, False], mask=[None, "post"]):
            seed += 1
            out.append(_layer(f"Bidirectional[{inner},{_tag(ax)}]", "Bidirectional",
                              {"layer": {"__layer__": inner,
                                         **_rnn_kwargs(inner,
                                                       return_sequences=ax["return_sequences"])},
                               "merge_mode": ax["merge_mode"]},
                              (3, 5, 4), seed, mask=ax["mask"]))
        out.append(_layer(f"Bidirectional[{inner},return_state]", "Bidirectional",
                          {"layer": {"__layer__": inner,
                                     **_rnn_kwargs(inner, return_sequences=True,
                                                   return_state=True)}},
                          (3, 5, 4), 990, mask="pre"))
    out.append(_layer("Bidirectional[LSTM,freeze=before_build]", "Bidirectional",
                      {"layer": {"__layer__": "LSTM", "units": 3}}, (3, 5, 4), 991,
                      freeze="before_build"))
    out.append(_layer("Bidirectional[LSTM,input=bool]", "Bidirectional",
                      {"layer": {"__layer__": "LSTM", "units": 3, "return_sequences": True}},
                      (3, 5, 4), 992, input_dtype="bool"))
    out.append(_layer("TimeDistributed[Dense]", "TimeDistributed",
                      {"layer": {"__layer__": "Dense", "units": 3}}, (2, 4, 5), 993))
    out.append(_layer("TimeDistributed[Conv2D]", "TimeDistributed",
                      {"layer": {"__layer__": "Conv2D", "filters": 2, "kernel_size": 2}},
                      (2, 3, 4, 4, 2), 994))
    out.append(_layer("TimeDistributed[Dense,mask]", "TimeDistributed",
                      {"layer": {"__layer__": "Dense", "units": 3}}, (3, 5, 4), 995,
                      mask="post"))
    return out


def embedding_cases():
    out = []
    for i, mask_zero in enumerate((False, True)):
        out.append(_layer(f"Embedding[mask_zero={mask_zero}]", "Embedding",
                          {"input_dim": 7, "output_dim": 3, "mask_zero": mask_zero}, (3, 5),
                          1000 + i, input_dtype="index:7"))
    out.append(_layer("Embedding[policy=mixed_float16]", "Embedding",
                      {"input_dim": 7, "output_dim": 3}, (3, 5), 1002, input_dtype="index:7",
                      policy="mixed_float16"))
    out.append(_layer("Masking[mask_value=0]", "Masking", {"mask_value": 0.0}, (3, 5, 2), 1003,
                      input_dtype="zero_rows"))
    return out


def conv_family_cases():
    """Conv3D/1D-transpose/3D-transpose, DepthwiseConv1D, SeparableConv1D, ConvLSTM."""
    out = []
    seed = 2000
    for ax in _grid(data_format=["channels_last", "channels_first"], strides=[1, 2],
                    padding=["valid", "same"]):
        seed += 1
        shape = (2, 5, 4, 6, 2) if ax["data_format"] == "channels_last" else (2, 2, 5, 4, 6)
        kw = {"kernel_size": 3, **ax}
        out.append(_layer(f"Conv3D[{_tag(ax)}]", "Conv3D", dict(kw, filters=3), shape, seed))
        out.append(_layer(f"Conv3DTranspose[{_tag(ax)}]", "Conv3DTranspose",
                          dict(kw, filters=3), shape, seed))
        shape1 = (2, 9, 3) if ax["data_format"] == "channels_last" else (2, 3, 9)
        out.append(_layer(f"Conv1DTranspose[{_tag(ax)}]", "Conv1DTranspose",
                          dict(kw, filters=4), shape1, seed))
        out.append(_layer(f"DepthwiseConv1D[{_tag(ax)}]", "DepthwiseConv1D",
                          dict(kw, depth_multiplier=2), shape1, seed))
        out.append(_layer(f"SeparableConv1D[{_tag(ax)}]", "SeparableConv1D",
                          dict(kw, filters=4), shape1, seed))
    out.append(_layer("Conv1DTranspose[strides=2,output_padding=1]", "Conv1DTranspose",
                      {"filters": 4, "kernel_size": 3, "strides": 2, "output_padding": 1},
                      (2, 6, 3), 2030))
    out.append(_layer("Conv3D[dilation=2]", "Conv3D",
                      {"filters": 2, "kernel_size": 2, "dilation_rate": 2}, (2, 5, 5, 5, 2), 2031))
    out.append(_layer("DepthwiseConv1D[dilation=2]", "DepthwiseConv1D",
                      {"kernel_size": 3, "dilation_rate": 2}, (2, 9, 3), 2032))
    for rank, shape in ((1, (2, 3, 7, 2)), (2, (2, 3, 5, 4, 2)), (3, (2, 2, 4, 3, 3, 2))):
        for ax in _grid(return_sequences=[False, True], padding=["valid", "same"]):
            seed += 1
            out.append(_layer(f"ConvLSTM{rank}D[{_tag(ax)}]", f"ConvLSTM{rank}D",
                              {"filters": 2, "kernel_size": 3 if rank == 1 else 2, **ax},
                              shape, seed))
    out.append(_layer("ConvLSTM2D[go_backwards,return_state]", "ConvLSTM2D",
                      {"filters": 2, "kernel_size": 2, "go_backwards": True,
                       "return_state": True}, (2, 3, 4, 4, 2), 2040))
    return out


def pooling3d_cases():
    out = []
    seed = 2100
    for name in ("MaxPooling3D", "AveragePooling3D"):
        for ax in _grid(pool_size=[2, 3], strides=[None, 1], padding=["valid", "same"],
                        data_format=["channels_last", "channels_first"]):
            seed += 1
            shape = (2, 5, 6, 4, 2) if ax["data_format"] == "channels_last" else (2, 2, 5, 6, 4)
            out.append(_layer(f"{name}[{_tag(ax)}]", name, dict(ax), shape, seed))
    for name in ("GlobalAveragePooling3D", "GlobalMaxPooling3D"):
        for ax in _grid(data_format=["channels_last", "channels_first"], keepdims=[False, True]):
            seed += 1
            shape = (2, 3, 4, 2, 3) if ax["data_format"] == "channels_last" else (2, 3, 3, 4, 2)
            out.append(_layer(f"{name}[{_tag(ax)}]", name, dict(ax), shape, seed))
    for kind in ("Average", "Max"):
        for rank, shape_l, shape_f, size in ((1, (2, 9, 3), (2, 3, 9), 4),
                                             (2, (2, 7, 6, 3), (2, 3, 7, 6), [3, 4]),
                                             (3, (2, 5, 6, 4, 2), (2, 2, 5, 6, 4), [2, 3, 3])):
            for fmt in ("channels_last", "channels_first"):
                seed += 1
                shape = shape_l if fmt == "channels_last" else shape_f
                name = f"Adaptive{kind}Pooling{rank}D"
                out.append(_layer(f"{name}[output_size={size},data_format={fmt}]", name,
                                  {"output_size": size, "data_format": fmt}, shape, seed))
    return out


def reshaping3d_cases():
    items = [
        ("Cropping3D", {"cropping": [[1, 0], [0, 2], [1, 1]]}, (2, 4, 5, 4, 2)),
        ("Cropping3D", {"cropping": 1, "data_format": "channels_first"}, (2, 2, 4, 5, 4)),
        ("UpSampling3D", {"size": [2, 1, 3]}, (2, 2, 3, 2, 2)),
        ("UpSampling3D", {"size": 2, "data_format": "channels_first"}, (2, 2, 2, 3, 2)),
        ("ZeroPadding3D", {"padding": [[1, 0], [2, 1], [0, 1]]}, (2, 2, 3, 2, 2)),
        ("ZeroPadding3D", {"padding": 1, "data_format": "channels_first"}, (2, 2, 2, 3, 2)),
    ]
    return [_layer(f"{name}[{_tag(kw)}]", name, kw, shape, 2200 + i)
            for i, (name, kw, shape) in enumerate(items)]


def misc_layer_cases():
    """Normalizations, regularization/noise layers at inference, EinsumDense, attention."""
    out = []
    seed = 2300
    items = [
        ("ActivityRegularization", {"l1": 0.01, "l2": 0.02}, (3, 4), {}),
        ("RMSNormalization", {}, (2, 3, 4), {}),
        ("RMSNormalization", {"axis": [1, 2], "epsilon": 0.1}, (2, 3, 4), {}),
        ("UnitNormalization", {}, (3, 4), {}),
        ("UnitNormalization", {"axis": [1, 2]}, (2, 3, 4), {}),
        ("Normalization", {"mean": 0.5, "variance": 2.0}, (3, 4), {}),
        ("Normalization", {"axis": -1, "mean": [0.1, 0.2, 0.3, 0.4],
                           "variance": [1.0, 2.0, 0.5, 4.0]}, (3, 4), {}),
        ("Normalization", {"mean": 0.5, "variance": 2.0, "invert": True}, (3, 4), {}),
        ("Rescaling", {"scale": 0.5, "offset": -1.0}, (2, 4, 4, 3), {}),
        ("EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "c"},
         (3, 5), {}),
        ("EinsumDense", {"equation": "abc,cd->abd", "output_shape": [None, 4],
                         "bias_axes": "d", "activation": "relu"}, (2, 3, 5), {}),
        ("EinsumDense", {"equation": "abc,cde->abde", "output_shape": [None, 2, 3]},
         (2, 3, 5), {}),
        ("SpectralNormalization", {"layer": {"__layer__": "Dense", "units": 3}}, (3, 4),
         {"training": False}),
        ("SpectralNormalization", {"layer": {"__layer__": "Conv2D", "filters": 2,
                                             "kernel_size": 2}}, (2, 4, 4, 3),
         {"training": False}),
        ("Wrapper", {"layer": {"__layer__": "Dense", "units": 3}}, (3, 4), {}),
    ]
    for name in ("AlphaDropout", "GaussianDropout", "GaussianNoise", "SpatialDropout1D",
                 "SpatialDropout2D", "SpatialDropout3D"):
        key = "stddev" if name == "GaussianNoise" else "rate"
        rank = {"1D": 3, "2D": 4, "3D": 5}.get(name[-2:], 3)
        shape = (2, 3, 4, 3, 2)[:rank]
        items.append((name, {key: 0.3}, shape, {"training": False}))
        items.append((name, {key: 0.0}, shape, {"training": True}))
    for i, (name, kw, shape, extra) in enumerate(items):
        tag = _tag({k: v for k, v in kw.items() if k != "layer"})
        if "layer" in kw:
            tag = kw["layer"]["__layer__"] + ("," + tag if tag else "")
        tag += "".join(f",{k}={v}" for k, v in extra.items())
        out.append(_layer(f"{name}[{tag}]", name, kw, shape, seed + i, **extra))
    out.append(_layer("ReversibleEmbedding[embed]", "ReversibleEmbedding",
                      {"input_dim": 7, "output_dim": 3}, (3, 5), 2350, input_dtype="index:7"))
    out.append(_layer("ReversibleEmbedding[tie_weights=False]", "ReversibleEmbedding",
                      {"input_dim": 7, "output_dim": 3, "tie_weights": False}, (3, 5), 2351,
                      input_dtype="index:7"))
    for ax in _grid(use_scale=[False, True], score_mode=["dot", "concat"],
                    mask=[None, "post"]):
        seed += 1
        out.append(_layer(f"Attention[{_tag(ax)}]", "Attention",
                          {"use_scale": ax["use_scale"], "score_mode": ax["score_mode"]},
                          (3, 5, 4), 2360 + len(out), n_inputs=2, mask=ax["mask"],
                          value_mask=True))
    out.append(_layer("Attention[causal]", "Attention", {}, (3, 5, 4), 2390, n_inputs=2,
                      call_kwargs={"use_causal_mask": True}))
    for use_scale in (False, True):
        out.append(_layer(f"AdditiveAttention[use_scale={use_scale}]", "AdditiveAttention",
                          {"use_scale": use_scale}, (3, 5, 4), 2391 + use_scale, n_inputs=2))
    out.append(_layer("AdditiveAttention[mask]", "AdditiveAttention", {}, (3, 5, 4), 2393,
                      n_inputs=2, mask="post", value_mask=True))
    for ax in _grid(num_heads=[1, 2], causal=[False, True]):
        out.append(_layer(f"MultiHeadAttention[{_tag(ax)}]", "MultiHeadAttention",
                          {"num_heads": ax["num_heads"], "key_dim": 3}, (2, 5, 4), 2400 + len(out),
                          n_inputs=2, positional=True,
                          call_kwargs={"use_causal_mask": ax["causal"]}))
    out.append(_layer("MultiHeadAttention[value_dim,output_shape,attention_axes]",
                      "MultiHeadAttention", {"num_heads": 2, "key_dim": 2, "value_dim": 3,
                                             "output_shape": 5, "attention_axes": [1]},
                      (2, 5, 4), 2420, n_inputs=2, positional=True))
    for ax in _grid(num_query_heads=[4], num_key_value_heads=[1, 2], causal=[False, True]):
        out.append(_layer(f"GroupQueryAttention[{_tag(ax)}]", "GroupQueryAttention",
                          {"head_dim": 2, "num_query_heads": 4,
                           "num_key_value_heads": ax["num_key_value_heads"]}, (2, 5, 4),
                          2430 + len(out), n_inputs=2, positional=True,
                          call_kwargs={"use_causal_mask": ax["causal"]}))
    return out


def image_layer_cases():
    """Image preprocessing: deterministic ones on values, random ones at inference."""
    out = []
    img = (2, 6, 5, 3)
    items = [
        ("Resizing", {"height": 4, "width": 7}, img, {}),
        ("Resizing", {"height": 3, "width": 3, "interpolation": "nearest"}, img, {}),
        ("Resizing", {"height": 4, "width": 4, "crop_to_aspect_ratio": True}, img, {}),
        ("Resizing", {"height": 9, "width": 8, "interpolation": "bicubic"}, img, {}),
        ("CenterCrop", {"height": 4, "width": 3}, img, {}),
        ("CenterCrop", {"height": 8, "width": 3}, img, {}),
        ("AutoContrast", {"value_range": [0, 255]}, img, {"input_dtype": "pixels"}),
        # threshold drawn from [0, 0]: every pixel inverted, the same draw on both sides
        ("Solarization", {"threshold_factor": [0.0, 0.0], "value_range": [0, 255]}, img,
         {"input_dtype": "pixels", "training": True}),
        ("Solarization", {"addition_factor": 0.3, "value_range": [0, 255]}, img,
         {"input_dtype": "pixels", "training": False}),
        ("RandomBrightness", {"factor": [0.2, 0.2], "value_range": [0, 255]}, img,
         {"input_dtype": "pixels", "training": True}),
        ("RandomContrast", {"factor": 0.0}, img, {"input_dtype": "pixels", "training": True}),
        ("RandomGrayscale", {"factor": 1.0}, img, {"input_dtype": "pixels", "training": True}),
        ("RandomGrayscale", {"factor": 0.0}, img, {"input_dtype": "pixels", "training": True}),
        ("MixUp", {}, img, {"training": False}),
    ]
    for name, kw in (("RandomBrightness", {"factor": 0.3}), ("RandomContrast", {"factor": 0.5}),
                     ("RandomCrop", {"height": 4, "width": 3}), ("RandomFlip", {}),
                     ("RandomGrayscale", {"factor": 0.5}), ("RandomHue", {"factor": 0.5}),
                     ("RandomRotation", {"factor": 0.2}),
                     ("RandomSaturation", {"factor": 0.5}),
                     ("RandomTranslation", {"height_factor": 0.2, "width_factor": 0.2}),
                     ("RandomZoom", {"height_factor": 0.2}),
                     ("RandomFlip", {"mode": "horizontal", "seed": 3})):
        items.append((name, kw, img, {"input_dtype": "pixels", "training": False}))
    for i, (name, kw, shape, extra) in enumerate(items):
        tag = _tag(kw) + "".join(f",{k}={v}" for k, v in extra.items() if k == "training")
        out.append(_layer(f"{name}[{tag}]", name, kw, shape, 2500 + i, **extra))
    return out


def augmentation_layer_cases():
    """Image augmentations added after the first set: fixed factors (no draw matters) in
    training, the random ones at inference; audio front ends on random signals."""
    img = (2, 6, 5, 3)
    train = {"input_dtype": "pixels", "training": True}
    infer = {"input_dtype": "pixels", "training": False}
    items = [
        ("Equalization", {}, img, train),
        ("RandomInvert", {"factor": [1.0, 1.0]}, img, train),
        ("RandomPosterization", {"factor": [3, 3]}, img, train),
        ("RandomSharpness", {"factor": [0.2, 0.2]}, img, train),
        ("RandomGaussianBlur", {"factor": [1.0, 1.0], "sigma": [0.5, 0.5]}, img, train),
        ("ContrastLimitedAdaptiveHistogramEqualization", {"tile_grid_size": [2, 2]}, img,
         train),
        ("RandomColorDegeneration", {"factor": [0.4, 0.4]}, img, train),
        ("RandomErasing", {"factor": [1.0, 1.0], "scale": [1.0, 1.0], "fill_value": 30.0},
         img, train),
        # the identity warp: there TensorFlow's image gradient (the upstream gradient
        # warped back by the inverse transform) equals the exact adjoint kerasish computes
        ("RandomPerspective", {"factor": [1.0, 1.0], "scale": 0.0}, img, train),
        ("RandomElasticTransform", {"scale": 0.0, "value_range": [0, 100]}, img, train),
        ("RandomColorJitter", {"brightness_factor": [0.1, 0.1]}, img, train),
        ("Pipeline", {"layers": [{"__layer__": "RandomInvert", "factor": [1.0, 1.0]},
                                 {"__layer__": "RandomPosterization", "factor": [2, 2]}]},
         img, train),
        ("RandomShear", {"x_factor": 0.2, "y_factor": 0.1}, img, infer),
        ("CutMix", {}, img, infer),
        ("AugMix", {}, img, infer),
        ("RandAugment", {}, img, infer),
        ("STFTSpectrogram", {"frame_length": 16, "frame_step": 8, "fft_length": 16,
                             "mode": "real"}, (2, 64, 1), {}),
        ("MelSpectrogram", {"fft_length": 32, "sequence_stride": 16, "num_mel_bins": 8,
                            "sampling_rate": 8000}, (2, 200), {}),
    ]
    out = []
    for i, (name, kw, shape, extra) in enumerate(items):
        tag = _tag(kw) + "".join(f",{k}={v}" for k, v in extra.items() if k == "training")
        out.append(_layer(f"{name}[{tag}]", name, kw, shape, 2700 + i, **extra))
    return out


def index_layer_cases():
    """Integer/categorical preprocessing (no gradients: integer inputs)."""
    items = [
        ("CategoryEncoding", {"num_tokens": 6, "output_mode": "one_hot"}, (4,), "index:6"),
        ("CategoryEncoding", {"num_tokens": 6, "output_mode": "multi_hot"}, (4, 3), "index:6"),
        ("CategoryEncoding", {"num_tokens": 6, "output_mode": "count"}, (4, 3), "index:6"),
        ("Discretization", {"bin_boundaries": [-0.5, 0.0, 0.7]}, (3, 4), "float32"),
        ("Discretization", {"bin_boundaries": [-0.5, 0.0, 0.7], "output_mode": "one_hot"},
         (4,), "float32"),
        ("IntegerLookup", {"vocabulary": [3, 1, 5]}, (3, 4), "index:7"),
        ("IntegerLookup", {"vocabulary": [3, 1, 5], "num_oov_indices": 0, "mask_token": 0},
         (3, 4), "index:6"),
        ("IntegerLookup", {"vocabulary": [3, 1, 5], "invert": True}, (3, 4), "index:4"),
        ("IntegerLookup", {"vocabulary": [3, 1, 5], "output_mode": "multi_hot"}, (3, 4),
         "index:7"),
        ("Hashing", {"num_bins": 5}, (3, 4), "index:50"),
        ("Hashing", {"num_bins": 5, "salt": 7}, (3, 4), "index:50"),
        ("Hashing", {"num_bins": 5, "mask_value": 0}, (3, 4), "index:50"),
    ]
    out = [_layer(f"{name}[{_tag(kw)}]", name, kw, shape, 2600 + i, input_dtype=dtype)
           for i, (name, kw, shape, dtype) in enumerate(items)]
    vocab = ["the", "cat", "sat", "mat"]
    strings = [
        ("StringLookup", {"vocabulary": vocab}, (3, 4), "words"),
        ("StringLookup", {"vocabulary": vocab, "num_oov_indices": 2}, (3, 4), "words"),
        ("StringLookup", {"vocabulary": vocab, "output_mode": "multi_hot"}, (3, 4), "words"),
        ("StringLookup", {"vocabulary": vocab, "output_mode": "count", "mask_token": ""},
         (3, 4), "words"),
        ("TextVectorization", {"vocabulary": vocab, "output_sequence_length": 6}, (3,),
         "sentences"),
        ("TextVectorization", {"vocabulary": vocab, "standardize": None, "split": "whitespace",
                               "output_sequence_length": 3}, (3,), "sentences"),
        ("TextVectorization", {"vocabulary": vocab, "output_mode": "multi_hot"}, (3,),
         "sentences"),
        ("TextVectorization", {"vocabulary": vocab, "output_mode": "count", "ngrams": 2},
         (3,), "sentences"),
        ("TextVectorization", {"vocabulary": vocab, "output_mode": "tf_idf",
                               "idf_weights": [0.5, 1.0, 1.5, 2.0]}, (3,), "sentences"),
    ]
    out += [_layer(f"{name}[{_tag(kw)}]", name, kw, shape, 2660 + i, input_dtype=dtype)
            for i, (name, kw, shape, dtype) in enumerate(strings)]
    for kw in ({"num_bins": 5}, {"num_bins": 4, "output_mode": "one_hot"}):
        out.append(_layer(f"HashedCrossing[{_tag(kw)}]", "HashedCrossing", kw, (4,), 2650,
                          input_dtype="index:10", n_inputs=2))
    return out


def layer_cases():
    return (dense_cases() + conv_cases() + pooling_cases() + normalization_cases()
            + activation_cases() + reshaping_cases() + merging_cases() + recurrent_cases()
            + embedding_cases() + conv_family_cases() + pooling3d_cases()
            + reshaping3d_cases() + misc_layer_cases() + image_layer_cases()
            + augmentation_layer_cases()
            + index_layer_cases())


LOSSES = [
    ("MeanSquaredError", {}, "regression"), ("MeanAbsoluteError", {}, "regression"),
    ("MeanAbsolutePercentageError", {}, "regression"),
    ("MeanSquaredLogarithmicError", {}, "positive"), ("Huber", {"delta": 0.5}, "regression"),
    ("LogCosh", {}, "regression"), ("CosineSimilarity", {"axis": -1}, "regression"),
    ("Poisson", {}, "positive"), ("KLDivergence", {}, "probs"),
    ("BinaryCrossentropy", {}, "binary_probs"),
    ("BinaryCrossentropy", {"from_logits": True}, "binary_logits"),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "binary_logits"),
    ("BinaryFocalCrossentropy", {"gamma": 2.0}, "binary_probs"),
    ("BinaryFocalCrossentropy", {"from_logits": True, "apply_class_balancing": True},
     "binary_logits"),
    ("CategoricalCrossentropy", {}, "probs"),
    ("CategoricalCrossentropy", {"from_logits": True}, "logits"),
    ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, "logits"),
    ("CategoricalFocalCrossentropy", {}, "probs"),
    ("CategoricalFocalCrossentropy", {"from_logits": True}, "logits"),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.5}, "sparse_probs"),
    ("SparseCategoricalCrossentropy", {}, "sparse_probs"),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, "sparse_logits"),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 0},
     "sparse_logits"),
    ("Hinge", {}, "pm1"), ("SquaredHinge", {}, "pm1"), ("CategoricalHinge", {}, "probs"),
    ("Dice", {}, "binary_probs"), ("Tversky", {"alpha": 0.3, "beta": 0.7}, "binary_probs"),
    ("Circle", {}, "sparse_logits"), ("Circle", {"gamma": 2.0, "margin": 0.4}, "sparse_logits"),
    ("CTC", {}, "ctc"),
]


def loss_cases():
    out = []
    for i, (name, kwargs, kind) in enumerate(LOSSES):
        for reduction in ("sum_over_batch_size", "sum", "none"):
            for weighted in (False, True):
                kw = dict(kwargs, reduction=reduction)
                out.append(_case("loss", f"{name}[{_tag(kw)},sample_weight={weighted}]",
                                 1100 + i, loss=name, kwargs=kw, kind=kind,
                                 sample_weight=weighted))
    return out


METRICS = [
    ("Mean", {}, "values"), ("Sum", {}, "values"),
    ("Accuracy", {}, "classes"), ("BinaryAccuracy", {}, "binary_probs"),
    ("BinaryAccuracy", {"threshold": 0.7}, "binary_probs"),
    ("CategoricalAccuracy", {}, "probs"), ("SparseCategoricalAccuracy", {}, "sparse_probs"),
    ("TopKCategoricalAccuracy", {"k": 2}, "probs"),
    ("SparseTopKCategoricalAccuracy", {"k": 2}, "sparse_probs"),
    ("AUC", {}, "binary_probs"), ("AUC", {"curve": "PR"}, "binary_probs"),
    ("AUC", {"num_thresholds": 11, "summation_method": "minoring"}, "binary_probs"),
    ("Precision", {}, "binary_probs"), ("Recall", {"thresholds": 0.3}, "binary_probs"),
    ("TruePositives", {}, "binary_probs"), ("TrueNegatives", {}, "binary_probs"),
    ("FalsePositives", {"thresholds": [0.2, 0.6]}, "binary_probs"),
    ("FalseNegatives", {}, "binary_probs"),
    ("PrecisionAtRecall", {"recall": 0.5}, "binary_probs"),
    ("RecallAtPrecision", {"precision": 0.5}, "binary_probs"),
    ("SensitivityAtSpecificity", {"specificity": 0.5}, "binary_probs"),
    ("SpecificityAtSensitivity", {"sensitivity": 0.5}, "binary_probs"),
    ("F1Score", {}, "multilabel"), ("F1Score", {"average": "macro", "threshold": 0.5},
                                    "multilabel"),
    ("FBetaScore", {"beta": 2.0, "average": "weighted"}, "multilabel"),
    ("MeanSquaredError", {}, "regression"), ("MeanAbsoluteError", {}, "regression"),
    ("MeanAbsolutePercentageError", {}, "regression"),
    ("MeanSquaredLogarithmicError", {}, "positive"), ("RootMeanSquaredError", {}, "regression"),
    ("LogCoshError", {}, "regression"), ("CosineSimilarity", {}, "regression"),
    ("R2Score", {}, "regression2"), ("PearsonCorrelation", {}, "regression"),
    ("ConcordanceCorrelation", {}, "regression"),
    ("Hinge", {}, "pm1"), ("SquaredHinge", {}, "pm1"), ("CategoricalHinge", {}, "probs"),
    ("Poisson", {}, "positive"), ("KLDivergence", {}, "probs"),
    ("BinaryCrossentropy", {}, "binary_probs"),
    ("CategoricalCrossentropy", {"from_logits": True}, "logits"),
    ("SparseCategoricalCrossentropy", {}, "sparse_probs"),
    ("IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, "classes"),
    ("MeanIoU", {"num_classes": 3}, "classes"),
    ("BinaryIoU", {}, "binary_probs"), ("BinaryIoU", {"target_class_ids": [1], "threshold": 0.3},
                                        "binary_probs"),
    ("OneHotIoU", {"num_classes": 4, "target_class_ids": [0, 2]}, "probs"),
    ("OneHotMeanIoU", {"num_classes": 4}, "probs"),
]


def metric_cases():
    out = []
    for i, (name, kwargs, kind) in enumerate(METRICS):
        for weighted in (False, True):
            out.append(_case("metric", f"{name}[{_tag(kwargs)},sample_weight={weighted}]",
                             1300 + i, metric=name, kwargs=kwargs, kind=kind,
                             sample_weight=weighted))
    return out


OPTIMIZERS = [
    ("SGD", {"learning_rate": 0.1}), ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"learning_rate": 0.01,
                                                          "weight_decay": 0.1}),
    ("AdamW", {}), ("AdamW", {"weight_decay": 0.01, "amsgrad": True}),
    ("Adamax", {}), ("Nadam", {}), ("RMSprop", {}), ("RMSprop", {"momentum": 0.5,
                                                               "centered": True}),
    ("Adagrad", {}), ("Adadelta", {"learning_rate": 1.0}), ("Lion", {}),
    ("SGD", {"learning_rate": 0.1, "clipnorm": 0.5}),
    ("SGD", {"learning_rate": 0.1, "clipvalue": 0.2}),
    ("Adam", {"global_clipnorm": 0.5}), ("Adam", {"use_ema": True, "ema_momentum": 0.5}),
    ("SGD", {"learning_rate": 0.1, "gradient_accumulation_steps": 2}),
    ("Adam", {"loss_scale_factor": 4.0}),
    ("Adafactor", {}), ("Adafactor", {"learning_rate": 0.1, "relative_step": False}),
    ("Ftrl", {"learning_rate": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01,
              "l2_regularization_strength": 0.02, "beta": 0.5}),
    ("Lamb", {}), ("Lamb", {"learning_rate": 0.01, "weight_decay": 0.1}),
    ("Muon", {}), ("ScheduleFreeAdamW", {}),
    ("ScheduleFreeAdamW", {"learning_rate": 0.01, "weight_decay": 0.1, "warmup_steps": 2}),
]


def optimizer_cases():
    out = [_case("optimizer", f"{name}[{_tag(kwargs)}]", 1500 + i, optimizer=name,
                 kwargs=kwargs) for i, (name, kwargs) in enumerate(OPTIMIZERS)]
    out.append(_case("optimizer", "LossScaleOptimizer[SGD]", 1590, optimizer="LossScaleOptimizer",
                     kwargs={"initial_scale": 8.0, "dynamic_growth_steps": 2},
                     nonfinite_step=1))
    out.append(_case("optimizer", "MultiOptimizer[SGD(momentum)+Adam,callable]", 1591,
                     optimizer="MultiOptimizer", kwargs={}))
    return out


MODELS = ["frozen_before_build", "frozen_after_build", "frozen_nested_model",
          "frozen_bn_nested", "retrained_after_freeze", "sequential_mixed_float16",
          "functional_masked_bilstm", "embedding_lstm_mask", "bool_input_lstm",
          "bool_input_gru", "mixed_float16_conv"]


def model_cases():
    return [_case("model", name, 1700 + i, model=name) for i, name in enumerate(MODELS)]


def all_cases():
    return layer_cases() + loss_cases() + metric_cases() + optimizer_cases() + model_cases()


# Running cases ---------------------------------------------------------------
class Lib:
    """What a recipe needs from one side: the keras-like module and its GradientTape."""

    def __init__(self, K, GradientTape, handle=None):
        self.K = K
        self.GradientTape = GradientTape
        # What a tape watches / differentiates for a Variable (tf needs `v.value`).
        self.handle = handle or (lambda v: v)
        self.emulate_channels_first = False

    def np(self, x):
        if x is None:
            return None
        return np.asarray(self.K.ops.convert_to_numpy(self.K.ops.cast(x, "float32"))
                          if _dtype_name(x) == "bfloat16" else self.K.ops.convert_to_numpy(x))


def _dtype_name(x):
    name = str(getattr(x, "dtype", ""))
    return name.replace("<dtype: '", "").replace("'>", "")


def build_layer(K, spec):
    """A layer from a JSON spec; `{"__layer__": name, ...}` values are nested layers."""
    if isinstance(spec, dict) and "__layer__" in spec:
        kwargs = {k: build_layer(K, v) for k, v in spec.items() if k != "__layer__"}
        return _make(K, spec["__layer__"], kwargs)
    if isinstance(spec, list):
        return [build_layer(K, v) for v in spec]
    return spec


def _make(K, name, kwargs):
    if name == "Lambda":
        return K.layers.Lambda(lambda x: x * 2.0 + 1.0, **kwargs)
    kwargs = {k: (tuple(v) if isinstance(v, list) and k in ("target_shape", "dims", "axes",
                                                             "size", "padding", "cropping",
                                                             "shared_axes") else v)
              for k, v in kwargs.items()}
    return getattr(K.layers, name)(**kwargs)


def make_input(case, rng):
    """(numpy input, dtype to feed) for a layer case."""
    shape = tuple(case["shape"])
    dtype = case.get("input_dtype", "float32")
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool), "bool"
    if dtype == "int32":
        return rng.integers(-2, 3, size=shape).astype("int32"), "int32"
    if dtype.startswith("index:"):
        return rng.integers(0, int(dtype.split(":")[1]), size=shape).astype("int32"), "int32"
    if dtype in ("words", "sentences"):  # fed as numpy string arrays
        words = rng.choice(["the", "cat", "Sat", "on", "mat", "dog"], size=shape + (4,))
        if dtype == "words":
            return words[..., 0], "str"
        return np.array([" ".join(w) + "." for w in words.reshape(-1, 4)]).reshape(shape), "str"
    if dtype == "pixels":
        return rng.uniform(0, 255, size=shape).astype("float32"), "float32"
    x = rng.normal(size=shape).astype("float32")
    if dtype == "zero_rows":
        x[:, -2:] = 0.0
        x[0, 0] = 0.0
        return x, "float32"
    return x, dtype


def make_mask(kind, batch, steps, rng):
    if kind is None:
        return None
    lengths = rng.integers(1, steps + 1, size=batch)
    lengths[0] = steps
    mask = np.array([[t < n for t in range(steps)] for n in lengths])
    if kind == "pre":
        mask = mask[:, ::-1].copy()
    if kind == "all_masked_row":
        mask[-1] = False
    return mask


def make_weights(layer, rng):
    out = []
    for v in layer.weights:
        shape = tuple(v.shape)
        name = v.name if hasattr(v, "name") else ""
        if "variance" in str(name):
            out.append(rng.uniform(0.5, 1.5, size=shape).astype("float32"))
        elif str(_dtype_name(v)).startswith(("int", "bool")):
            out.append(np.zeros(shape, dtype=_dtype_name(v)))
        else:
            out.append((rng.normal(size=shape) * 0.5).astype("float32"))
    return out


def run_layer_case(lib, case):
    """Forward, gradients w.r.t. inputs and weights, and state after the call."""
    K = lib.K
    rng = np.random.default_rng(case["seed"])
    policy = case.get("policy")
    if policy:
        K.mixed_precision.set_global_policy(policy)
    try:
        return _run_layer_case(lib, case, rng)
    finally:
        if policy:
            K.mixed_precision.set_global_policy("float32")


def _feed(K, arr, dtype):
    if dtype == "str":
        return arr
    t = K.ops.convert_to_tensor(arr)
    if dtype in FLOAT_DTYPES and dtype != "float32":
        t = K.ops.cast(t, dtype)
    return t


def _run_layer_case(lib, case, rng):
    K = lib.K
    layer = build_layer(K, {"__layer__": case["layer"], **case["kwargs"]})
    n_inputs = case.get("n_inputs", 1)
    arrays = [make_input(case, rng) for _ in range(n_inputs)]
    if case.get("cell_step"):
        return _run_cell_step(lib, layer, arrays[0][0], rng)
    mask = make_mask(case.get("mask"), case["shape"][0], (case["shape"] + [1])[1], rng)
    if case.get("freeze") == "before_build":
        layer.trainable = False
    xs = [_feed(K, a, d) for a, d in arrays]
    call_kwargs = {}
    states = []
    if case.get("initial_state"):
        sizes = _flat_sizes(layer.cell.state_size)
        states = [K.ops.convert_to_tensor(rng.normal(size=(case["shape"][0], int(n)))
                                          .astype("float32")) for n in sizes]
        call_kwargs["initial_state"] = states
    if "training" in case:
        call_kwargs["training"] = case["training"]
    call_kwargs.update(case.get("call_kwargs", {}))
    if mask is not None and case.get("value_mask"):  # attention: [query_mask, value_mask]
        call_kwargs["mask"] = [None, K.ops.convert_to_tensor(mask)]
    elif mask is not None:
        call_kwargs["mask"] = K.ops.convert_to_tensor(mask)
    inputs = xs if n_inputs > 1 else xs[0]
    if case.get("positional"):  # query, value as separate arguments
        layer = _Positional(layer)
    _call_layer(lib, layer, inputs, call_kwargs)  # builds
    layer.set_weights(make_weights(layer, rng))
    if case.get("freeze") == "after_build":
        layer.trainable = False
    if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
        layer.reset_states()
    result = {"weight_names": [str(v.name) for v in layer.weights],
              "trainable_names": [str(v.name) for v in layer.trainable_weights],
              "weight_shapes": [list(v.shape) for v in layer.weights]}
    if case.get("repeat_call"):
        _call_layer(lib, layer, inputs, call_kwargs)
    float_inputs = [x for x, (_, d) in zip(xs, arrays) if d in FLOAT_DTYPES] + states
    watched = [lib.handle(v) for v in layer.weights
               if _dtype_name(v).startswith(("float", "bfloat"))]
    with lib.GradientTape(persistent=True) as tape:
        for x in float_inputs:
            tape.watch(x)
        for v in watched:
            tape.watch(v)
        out = _call_layer(lib, layer, inputs, call_kwargs)
        flat = out if isinstance(out, (list, tuple)) else [out]
        loss = 0.0
        for o in flat:
            cot = rng.normal(size=tuple(o.shape)).astype("float32")
            loss = loss + K.ops.sum(K.ops.multiply(K.ops.cast(o, "float32"), cot))
    arrays_out = {}
    result["output_dtypes"] = [_dtype_name(o) for o in flat]
    result["output_masks"] = []
    for i, o in enumerate(flat):
        arrays_out[f"out{i}"] = lib.np(o)
        m = getattr(o, "_keras_mask", None)
        result["output_masks"].append(m is not None)
        if m is not None:
            arrays_out[f"mask{i}"] = np.asarray(K.ops.convert_to_numpy(m))
    grads = tape.gradient(loss, float_inputs + watched)
    for i, g in enumerate(grads[:len(float_inputs)]):
        arrays_out[f"gin{i}"] = _grad(lib, g, float_inputs[i])
    for i, g in enumerate(grads[len(float_inputs):]):
        arrays_out[f"gw{i}"] = _grad(lib, g, watched[i])
    for i, v in enumerate(layer.weights):
        arrays_out[f"w{i}"] = lib.np(v)
    return result, arrays_out


class _Positional:
    """Calls a layer with its inputs as separate positional arguments (attention)."""

    def __init__(self, layer):
        self.layer = layer

    def __call__(self, inputs, **kwargs):
        return self.layer(*inputs, **kwargs)

    def __getattr__(self, name):
        return getattr(self.layer, name)


def _call_layer(lib, layer, inputs, call_kwargs):
    """Calls the layer; with `lib.emulate_channels_first` (TF on CPU has no NCHW
    kernels) a channels_first layer runs as channels_last on transposed data."""
    if not lib.emulate_channels_first:
        return layer(inputs, **call_kwargs)
    K = lib.K
    rank = len(inputs.shape)
    to_last = (0,) + tuple(range(2, rank)) + (1,)
    to_first = (0, rank - 1) + tuple(range(1, rank - 1))
    out = layer(K.ops.transpose(inputs, to_last), **call_kwargs)
    return K.ops.transpose(out, to_first)


def _grad(lib, g, like):
    if g is None:
        return np.zeros(tuple(like.shape), dtype="float32")
    return lib.np(g).astype("float32")


def _flat_sizes(size):
    if isinstance(size, int) or not hasattr(size, "__iter__"):
        return [size]
    return [n for s in size for n in _flat_sizes(s)]


def _run_cell_step(lib, cell, x, rng):
    K = lib.K
    sizes = [int(n) for n in _flat_sizes(cell.state_size)]
    states_np = [rng.normal(size=(x.shape[0], s)).astype("float32") for s in sizes]
    xt = K.ops.convert_to_tensor(x)
    states = [K.ops.convert_to_tensor(s) for s in states_np]
    cell(xt, states)
    cell.set_weights(make_weights(cell, rng))
    with lib.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        for s in states:
            tape.watch(s)
        h, new_states = cell(xt, states)
        flat = [h] + list(new_states)
        loss = 0.0
        for o in flat:
            loss = loss + K.ops.sum(K.ops.multiply(
                o, rng.normal(size=tuple(o.shape)).astype("float32")))
    grads = tape.gradient(loss, [xt] + states + [lib.handle(v) for v in cell.trainable_weights])
    arrays = {f"out{i}": lib.np(o) for i, o in enumerate(flat)}
    arrays.update({f"g{i}": _grad(lib, g, w) for i, (g, w) in
                   enumerate(zip(grads, [xt] + states + list(cell.trainable_weights)))})
    meta = {"weight_names": [str(v.name) for v in cell.weights],
            "trainable_names": [str(v.name) for v in cell.trainable_weights],
            "weight_shapes": [list(v.shape) for v in cell.weights],
            "output_dtypes": [_dtype_name(o) for o in flat], "output_masks": []}
    return meta, arrays


# Losses and metrics ----------------------------------------------------------
def make_targets(kind, rng, batch=6, classes=4):
    """(y_true, y_pred) numpy arrays for a kind of problem."""
    shape = (batch, classes)
    if kind == "regression":
        return rng.normal(size=shape).astype("float32"), rng.normal(size=shape).astype("float32")
    if kind == "regression2":
        return rng.normal(size=(batch, 1)).astype("float32"), \
            rng.normal(size=(batch, 1)).astype("float32")
    if kind == "positive":
        return rng.uniform(0.1, 2, size=shape).astype("float32"), \
            rng.uniform(0.1, 2, size=shape).astype("float32")
    if kind == "values":
        return rng.normal(size=(batch,)).astype("float32"), None
    if kind == "classes":
        return rng.integers(0, 3, size=(batch, 1)).astype("float32"), \
            rng.integers(0, 3, size=(batch, 1)).astype("float32")
    if kind in ("probs", "logits"):
        labels = rng.integers(0, classes, size=batch)
        y_true = np.eye(classes, dtype="float32")[labels]
        logits = rng.normal(size=shape).astype("float32") * 2
        if kind == "logits":
            return y_true, logits
        p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        return y_true, p.astype("float32")
    if kind in ("sparse_probs", "sparse_logits"):
        labels = rng.integers(0, classes, size=(batch,)).astype("int32")
        logits = rng.normal(size=shape).astype("float32") * 2
        if kind == "sparse_logits":
            return labels, logits
        p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        return labels, p.astype("float32")
    if kind in ("binary_probs", "binary_logits", "multilabel"):
        y_true = rng.integers(0, 2, size=shape).astype("float32")
        logits = rng.normal(size=shape).astype("float32") * 2
        if kind == "binary_logits":
            return y_true, logits
        return y_true, (1 / (1 + np.exp(-logits))).astype("float32")
    if kind == "ctc":  # labels 1..classes-1 (0 is the blank), logits over 7 time steps
        return rng.integers(1, classes, size=(batch, 3)).astype("int32"), \
            rng.normal(size=(batch, 7, classes)).astype("float32")
    if kind == "pm1":
        return rng.choice([-1.0, 1.0], size=shape).astype("float32"), \
            rng.normal(size=shape).astype("float32")
    raise ValueError(kind)


def run_loss_case(lib, case):
    K = lib.K
    rng = np.random.default_rng(case["seed"])
    y_true, y_pred = make_targets(case["kind"], rng)
    sw = rng.uniform(0, 2, size=(y_true.shape[0],)).astype("float32") \
        if case["sample_weight"] else None
    loss_obj = getattr(K.losses, case["loss"])(**case["kwargs"])
    yp = K.ops.convert_to_tensor(y_pred)
    with lib.GradientTape() as tape:
        tape.watch(yp)
        value = loss_obj(K.ops.convert_to_tensor(y_true), yp, sample_weight=sw)
        total = K.ops.sum(value)
    grad = tape.gradient(total, yp)
    return {"dtype": _dtype_name(value)}, {"value": lib.np(value), "grad": _grad(lib, grad, yp)}


def run_metric_case(lib, case):
    K = lib.K
    rng = np.random.default_rng(case["seed"])
    metric = getattr(K.metrics, case["metric"])(**case["kwargs"])
    results = []
    for _ in range(2):
        y_true, y_pred = make_targets(case["kind"], rng)
        sw = rng.uniform(0, 2, size=(y_true.shape[0],)).astype("float32") \
            if case["sample_weight"] else None
        if y_pred is None:
            metric.update_state(y_true, sample_weight=sw)
        else:
            metric.update_state(y_true, y_pred, sample_weight=sw)
        results.append(lib.np(metric.result()))
    return {}, {f"result{i}": r for i, r in enumerate(results)}


def run_optimizer_case(lib, case):
    K = lib.K
    rng = np.random.default_rng(case["seed"])
    kwargs = dict(case["kwargs"])
    if case["optimizer"] == "LossScaleOptimizer":
        opt = K.optimizers.LossScaleOptimizer(K.optimizers.SGD(learning_rate=0.1), **kwargs)
    elif case["optimizer"] == "MultiOptimizer":  # matrices with SGD, vectors with Adam
        sgd, adam = K.optimizers.SGD(learning_rate=0.1, momentum=0.5), K.optimizers.Adam()
        opt = K.optimizers.MultiOptimizer(lambda v: sgd if len(v.shape) == 2 else adam,
                                          **kwargs)
    else:
        opt = getattr(K.optimizers, case["optimizer"])(**kwargs)
    shapes = [(3, 2), (2,)]
    variables = [K.Variable(rng.normal(size=s).astype("float32")) for s in shapes]
    arrays = {}
    for step in range(4):
        grads = [rng.normal(size=s).astype("float32") for s in shapes]
        if case.get("nonfinite_step") == step:
            grads[0][0, 0] = np.inf
        opt.apply([K.ops.convert_to_tensor(g) for g in grads], variables)
        for i, v in enumerate(variables):
            arrays[f"step{step}_v{i}"] = lib.np(v)
    arrays["iterations"] = np.asarray(lib.np(opt.iterations), dtype="int64")
    if case["optimizer"] == "LossScaleOptimizer":
        arrays["scale"] = lib.np(opt.dynamic_scale)
    return {"n_variables": len(opt.variables)}, arrays


# Models: trainable flags, summary, one fit step -------------------------------
def build_model(K, name, rng):
    L = K.layers
    if name == "frozen_before_build":
        base = L.Dense(5, name="base")
        base.trainable = False
        inp = K.Input((3,))
        model = K.Model(inp, L.Dense(2, name="head")(base(inp)))
        return model, rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    if name == "frozen_after_build":
        inp = K.Input((3,))
        base = L.Dense(5, name="base")
        model = K.Model(inp, L.Dense(2, name="head")(base(inp)))
        base.trainable = False
        return model, rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    if name in ("frozen_nested_model", "retrained_after_freeze"):
        inner = K.Sequential([K.Input((3,)), L.Dense(4, name="inner_a"),
                              L.Dense(4, name="inner_b")], name="inner")
        inner.trainable = False
        if name == "retrained_after_freeze":
            inner.layers[1].trainable = True  # sublayer flag set while its parent is frozen
        inp = K.Input((3,))
        model = K.Model(inp, L.Dense(2, name="head")(inner(inp)))
        return model, rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    if name == "frozen_bn_nested":
        inner = K.Sequential([K.Input((3,)), L.Dense(4, name="d"),
                              L.BatchNormalization(name="bn")], name="block")
        inner.layers[1].trainable = False
        inp = K.Input((3,))
        model = K.Model(inp, L.Dense(2, name="head")(inner(inp)))
        return model, rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    if name in ("sequential_mixed_float16", "mixed_float16_conv"):
        K.mixed_precision.set_global_policy("mixed_float16")
        try:
            if name == "mixed_float16_conv":
                model = K.Sequential([K.Input((6, 6, 2)), L.Conv2D(3, 3, activation="relu"),
                                      L.GlobalAveragePooling2D(),
                                      L.Dense(2, dtype="float32")])
                x = rng.normal(size=(8, 6, 6, 2))
            else:
                model = K.Sequential([K.Input((3,)), L.Dense(4, activation="relu"),
                                      L.Dense(2, dtype="float32")])
                x = rng.normal(size=(8, 3))
        finally:
            K.mixed_precision.set_global_policy("float32")
        return model, x, rng.normal(size=(8, 2))
    if name == "functional_masked_bilstm":
        inp = K.Input((5, 3))
        h = L.Masking(0.0)(inp)
        h = L.Bidirectional(L.LSTM(3, return_sequences=True))(h)
        h = L.GlobalAveragePooling1D()(h)
        model = K.Model(inp, L.Dense(2)(h))
        x = rng.normal(size=(8, 5, 3))
        for i in range(8):
            x[i, rng.integers(1, 6):] = 0.0
        return model, x, rng.normal(size=(8, 2))
    if name == "embedding_lstm_mask":
        inp = K.Input((6,), dtype="int32")
        h = L.Embedding(10, 3, mask_zero=True)(inp)
        h = L.LSTM(4)(h)
        model = K.Model(inp, L.Dense(2)(h))
        x = rng.integers(1, 10, size=(8, 6))
        for i in range(8):
            x[i, rng.integers(1, 7):] = 0
        return model, x.astype("int32"), rng.normal(size=(8, 2))
    if name in ("bool_input_lstm", "bool_input_gru"):
        rnn = L.LSTM(4) if name == "bool_input_lstm" else L.GRU(4)
        model = K.Sequential([K.Input((5, 3)), rnn, L.Dense(2)])
        x = rng.integers(0, 2, size=(8, 5, 3)).astype(bool)
        return model, x, rng.normal(size=(8, 2))
    raise ValueError(name)


def run_model_case(lib, case):
    K = lib.K
    rng = np.random.default_rng(case["seed"])
    model, x, y = build_model(K, case["model"], rng)
    if x.dtype == np.float64:
        x = x.astype("float32")
    y = y.astype("float32")
    model.set_weights(make_weights(model, rng))
    lines = []
    model.summary(print_fn=lambda line, *a, **k: lines.append(line), show_trainable=True,
                  line_length=100)
    meta = {"summary": "\n".join(lines),
            "trainable_names": [str(v.path) for v in model.trainable_weights],
            "weight_names": [str(v.path) for v in model.weights],
            "layer_trainable": [bool(layer.trainable) for layer in model.layers]}
    model.compile(optimizer=K.optimizers.SGD(learning_rate=0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    arrays = {f"w{i}": lib.np(v) for i, v in enumerate(model.weights)}
    arrays["pred"] = lib.np(model.predict(x, verbose=0)).astype("float32")
    meta["optimizer_class"] = type(model.optimizer).__name__
    meta["pred_dtype"] = _dtype_name(model(x[:2]))
    return meta, arrays


RUNNERS = {"layer": run_layer_case, "loss": run_loss_case, "metric": run_metric_case,
           "optimizer": run_optimizer_case, "model": run_model_case}


def run_case(lib, case):
    """(JSON metadata, {name: array}) for any case."""
    return RUNNERS[case["group"]](lib, case)
