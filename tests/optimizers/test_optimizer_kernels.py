"""Fused optimizer kernels: cupy versions against the numpy reference.

Without a GPU, a stand-in `cupy` module records every `ElementwiseKernel`
and compiles its CUDA body as C++ for the CPU (g++, T = float, no FMA
contraction), so the GPU kernels' formulas and argument order are checked
bit for bit against numpy. With cupy and a GPU, the real kernels are
compared too (to float32 rounding, as CUDA contracts to FMA).
"""
import ctypes
import hashlib
import importlib.util
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from kerasish.backend import devices
from kerasish.backend.kernels import numpy_kernels

CUPY_KERNELS = Path(numpy_kernels.__file__).with_name("cupy_kernels.py")


def _param_names(params):
    return [p.split()[-1] for p in params.split(",") if p.strip()]


class _CpuElementwiseKernel:
    """Runs an ElementwiseKernel's operation as compiled C++ over numpy arrays."""

    build_dir = None  # set by the fixture

    def __init__(self, in_params, out_params, operation, name="kernel", **kwargs):
        self.ins, self.outs = _param_names(in_params), _param_names(out_params)
        self.operation, self.name, self._fn = operation, name, None

    def _compile(self):
        decls = [f"const T* in_{n}" for n in self.ins] + [f"T* out_{n}" for n in self.outs]
        body = "".join(f"const T {n} = in_{n}[k_];" for n in self.ins)
        body += "".join(f"T& {n} = out_{n}[k_];" for n in self.outs)
        source = ("#include <cmath>\nusing std::sqrt; using std::exp; typedef float T;\n"
                  f'extern "C" void run(long n_, {", ".join(decls)}) {{\n'
                  f"for (long k_ = 0; k_ < n_; ++k_) {{ {body} {self.operation}; }} }}\n")
        stem = self.build_dir / hashlib.sha1(source.encode()).hexdigest()
        stem.with_suffix(".cpp").write_text(source)
        subprocess.run(["g++", "-O1", "-ffp-contract=off", "-fPIC", "-shared", "-o",
                        str(stem.with_suffix(".so")), str(stem.with_suffix(".cpp"))], check=True)
        self._fn = ctypes.CDLL(str(stem.with_suffix(".so"))).run

    def __call__(self, *args):
        if self._fn is None:
            self._compile()
        ins, outs = args[:len(self.ins)], args[len(self.ins):]
        assert len(outs) == len(self.outs), f"{self.name}: wrong number of outputs"
        shape = outs[0].shape
        for a in ins:  # 0-d arrays bind the type T, so they must match the params
            assert not isinstance(a, np.ndarray) or a.dtype == np.float32, self.name
        arrays = [np.ascontiguousarray(np.broadcast_to(np.asarray(a, np.float32), shape))
                  for a in ins]
        for out in outs:
            assert out.dtype == np.float32 and out.shape == shape and out.flags.c_contiguous
        pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in arrays + list(outs)]
        self._fn(ctypes.c_long(int(np.prod(shape))), *pointers)


class _Anything:
    """Absorbs any other cupy API used at import time (not exercised here)."""

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return self


@pytest.fixture(scope="module")
def cpu_cupy_kernels(tmp_path_factory):
    """`cupy_kernels.py` imported against the g++-backed stand-in cupy."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is needed to compile the cupy kernels for the CPU")
    _CpuElementwiseKernel.build_dir = tmp_path_factory.mktemp("cupy_kernels")
    fake_cupy = types.ModuleType("cupy")
    fake_cupy.ElementwiseKernel = _CpuElementwiseKernel
    fake_cupy.ndarray = np.ndarray
    fake_cupy.__getattr__ = lambda name: _Anything()
    fake_cupyx = types.ModuleType("cupyx")
    fake_cupyx.__getattr__ = lambda name: _Anything()
    saved = {name: sys.modules.get(name) for name in ("cupy", "cupyx")}
    sys.modules.update(cupy=fake_cupy, cupyx=fake_cupyx)
    try:
        spec = importlib.util.spec_from_file_location("_cupy_kernels_on_cpu", CUPY_KERNELS)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
    return module


def _arrays(seed):
    rng = np.random.default_rng(seed)
    shape = (5, 7)
    return {
        "p": rng.normal(size=shape).astype(np.float32),
        "g": (rng.normal(size=shape) * 0.5).astype(np.float32),
        "m": (rng.normal(size=shape) * 0.1).astype(np.float32),
        "v": rng.uniform(0.0, 0.3, size=shape).astype(np.float32),
        "w": rng.uniform(0.0, 0.3, size=shape).astype(np.float32),
        "a": (rng.normal(size=shape) * 0.05).astype(np.float32),
    }


LR = np.array(0.05, np.float32)  # 0-d array scalar, as the optimizers pass it
CASES = {  # name -> (kernel name, array keys updated in place + read, scalar args)
    "weight_decay": ("weight_decay_update", ["p"], [np.float32(0.01), LR]),
    "ema": ("ema_update", ["v", "p"], [np.float32(0.99)]),
    "sgd": ("sgd_update", ["p", "g", None], [LR, 0.0, False]),
    "sgd_momentum": ("sgd_update", ["p", "g", "m"], [LR, 0.9, False]),
    "sgd_nesterov": ("sgd_update", ["p", "g", "m"], [LR, 0.9, True]),
    "adam": ("adam_update", ["p", "g", "m", "v"], [np.float32(0.0123), 0.9, 0.999, 1e-7]),
    "amsgrad": ("adam_update", ["p", "g", "m", "v"], [np.float32(0.0123), 0.9, 0.999, 1e-7, "w"]),
    "rmsprop": ("rmsprop_update", ["p", "g", "v"], [LR, 0.9, 1e-7]),
    "rmsprop_momentum": ("rmsprop_update", ["p", "g", "v"], [LR, 0.9, 1e-7, "m", 0.5]),
    "rmsprop_centered": ("rmsprop_update", ["p", "g", "v"], [LR, 0.9, 1e-7, None, 0.0, "a"]),
    "rmsprop_both": ("rmsprop_update", ["p", "g", "v"], [LR, 0.8, 1e-6, "m", 0.5, "a"]),
    "adagrad": ("adagrad_update", ["p", "g", "v"], [LR, 1e-7]),
    "adadelta": ("adadelta_update", ["p", "g", "v", "w"], [LR, 0.95, 1e-7]),
    "adamax": ("adamax_update", ["p", "g", "m", "v"], [LR, 0.9, 0.999, 1e-7, np.float32(0.729)]),
    "nadam": ("nadam_update", ["p", "g", "m", "v"],
              [LR, 0.9, 0.999, 1e-7, np.float32(0.8802), np.float32(0.8845),
               np.float32(0.7922), np.float32(0.7007), np.float32(0.002997)]),
    "lion": ("lion_update", ["p", "g", "m"], [LR, 0.9, 0.99]),
}


def _run(kernel, keys, scalars, arrays, to_device=lambda a: a):
    state = {k: to_device(v.copy()) for k, v in arrays.items()}
    args = [state[k] if k else None for k in keys]
    args += [state[s] if isinstance(s, str) else s for s in scalars]
    kernel(*args)
    return {k: devices.to_host(v) for k, v in state.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cupy_kernel_bodies_match_numpy(case, cpu_cupy_kernels):
    name, keys, scalars = CASES[case]
    arrays = _arrays(seed=len(case))
    want = _run(getattr(numpy_kernels, name), keys, scalars, arrays)
    got = _run(getattr(cpu_cupy_kernels, name), keys, scalars, arrays)
    for key in arrays:
        np.testing.assert_array_equal(got[key], want[key], err_msg=f"{case}: {key}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_gpu_kernels_match_numpy(case):
    if not devices.cupy_available():
        pytest.skip("needs cupy and a CUDA GPU")
    import cupy
    gpu = devices.get_device("gpu:0")
    name, keys, scalars = CASES[case]
    arrays = _arrays(seed=len(case))
    want = _run(getattr(numpy_kernels, name), keys, scalars, arrays)
    got = _run(gpu.kernel(name), keys, [cupy.asarray(s) if isinstance(s, np.ndarray) else s
                                        for s in scalars], arrays, to_device=cupy.asarray)
    for key in arrays:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-6, atol=1e-7,
                                   err_msg=f"{case}: {key}")
