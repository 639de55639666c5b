"""Type promotion: the dtype an op returns when its inputs' dtypes differ.

Keras 3 promotes like JAX (a lattice, not numpy's value-based rules):
`int32 + float32 -> float32` (numpy says float64), `int8 + uint8 -> int16`,
and Python scalars are *weak*: they take the tensor's type when they can
(`float16 tensor * 2.0 -> float16`, `int8 tensor + 1 -> int8`) and resolve
to `floatx()` / `int32` otherwise (`int32 tensor * 0.5 -> float32`).

Unlike JAX without x64, kerasish keeps 64-bit types (float64 stays float64),
which the float64 gradient checks rely on; complex types sit on top of the
lattice and, as Keras, any complex result is complex64.
"""
import functools

from kerasish.backend import config

_INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
_FLOATS = ("bfloat16", "float16", "float32", "float64")
WEAK_INT, WEAK_FLOAT = "int", "float"  # Python int / float


def _lattice():
    """Each type mapped to the types immediately above it (JAX's lattice)."""
    u1, u2, u4, u8, i1, i2, i4, i8 = _INTS
    bf, f2, f4, f8 = _FLOATS
    c8, c16 = "complex64", "complex128"
    return {
        "bool": [WEAK_INT], WEAK_INT: [u1, i1, c8], u1: [i2, u2], u2: [i4, u4],
        u4: [i8, u8], u8: [WEAK_FLOAT], i1: [i2], i2: [i4], i4: [i8],
        i8: [WEAK_FLOAT], WEAK_FLOAT: [bf, f2], bf: [f4], f2: [f4], f4: [f8, c8], f8: [c16],
        c8: [c16], c16: [],
    }


def _upper_bounds():
    lattice = _lattice()
    bounds = {}
    for node in lattice:
        seen, todo = {node}, [node]
        while todo:
            for up in lattice[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        bounds[node] = frozenset(seen)
    return bounds


_BOUNDS = _upper_bounds()


@functools.lru_cache(maxsize=1024)
def _least_upper_bound(nodes):
    common = frozenset.intersection(*(_BOUNDS[n] for n in nodes))
    least = [c for c in common if common <= _BOUNDS[c]]
    return least[0]


def _node(dtype):
    """(lattice node, is_weak) for a dtype, a Python type or a weak name."""
    if dtype is int:
        return WEAK_INT, True
    if dtype is float:
        return WEAK_FLOAT, True
    if dtype is bool:
        return "bool", False
    if dtype is complex:  # a strong complex128, as Keras's TensorFlow backend
        return "complex128", False
    if isinstance(dtype, str) and dtype in (WEAK_INT, WEAK_FLOAT):
        return dtype, True
    name = config.standardize_dtype(dtype)
    if name not in _BOUNDS:
        raise ValueError(f"dtype {name!r} cannot take part in type promotion.")
    return name, False


@functools.lru_cache(maxsize=1024)
def _result(nodes, floatx):
    names = [n for n, _ in nodes]
    if all(weak for _, weak in nodes):
        # only Python scalars: int -> int32, float -> floatx (bool stays bool)
        top = _least_upper_bound(frozenset(names))
        return {WEAK_INT: "int32", WEAK_FLOAT: floatx}.get(top, top)
    top = _least_upper_bound(frozenset(names))
    if top == WEAK_FLOAT:  # ints met a Python float: Keras gives floatx
        return floatx
    if top == WEAK_INT:  # bools met a Python int
        return "int32"
    # Keras narrows complex128 to complex64 on every backend
    return "complex64" if top == "complex128" else top


def result_type(*dtypes):
    """The dtype Keras's promotion rules give for mixing `dtypes`.

    Args:
        *dtypes: dtype names, numpy dtypes, or the Python types `int`,
            `float`, `bool` standing for weakly typed Python scalars.

    Returns:
        str: the canonical result dtype name.

    Example:
        >>> keras.backend.result_type("int32", "float32")
        'float32'
        >>> keras.backend.result_type("float16", float)
        'float16'
    """
    if not dtypes:
        return config.floatx()
    nodes = tuple(sorted({_node(d) for d in dtypes}))
    return _result(nodes, config.floatx())


def scalar_kind(value):
    """`int`, `float` or `bool` for a Python scalar (numpy scalars are strong)."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    return float
