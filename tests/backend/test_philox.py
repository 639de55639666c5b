"""kerasish.backend.philox: Philox4x32-10 and TF's stateless conversions.

(The streams themselves are checked against Keras fixtures in
tests/random/test_keras_streams.py.)
"""
import numpy as np
import pytest

from kerasish.backend import philox


def test_philox_reference_vector():
    # Salmon et al.'s known-answer test for Philox4x32-10 (counter 0, key 0).
    assert philox._philox_python([0, 0, 0, 0], (0, 0)) == [
        0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_vectorised_philox_agrees_with_the_scalar_reference():
    kc = philox.seed_to_key_counter(1234, 5)
    words = philox.random_words(np, kc, 7, skip=300, blocks=3)
    (k, c) = kc
    for g in range(7):
        for b in range(3):
            counter = [g * 300 + b, 0, c[2], c[3]]
            assert words[g, 4 * b:4 * b + 4].tolist() == philox._philox_python(counter, k)


def test_counters_must_start_at_zero():
    with pytest.raises(ValueError, match="counters"):
        philox.random_words(np, ((1, 2), (5, 0, 0, 0)), 3)


def test_uniform_float_bits_are_the_mantissa_of_each_word():
    kc = philox.seed_to_key_counter(7, 0)
    words = philox.random_words(np, kc, 2).reshape(-1)[:7]
    u = philox.uniform_float(np, kc, (7,), np.float32)
    np.testing.assert_array_equal(u, (words & 0x7FFFFF).astype(np.float64) / 2**23)
    u64 = philox.uniform_float(np, kc, (3,), np.float64)
    w = philox.random_words(np, kc, 2).reshape(-1, 2)[:3].astype(np.float64)
    np.testing.assert_array_equal(u64, ((w[:, 0] % 2**20) * 2**32 + w[:, 1]) / 2**52)


def test_truncated_normal_is_within_two_and_roughly_standard():
    x = philox.truncated_normal(np, philox.seed_to_key_counter(1, 2), (20000,), np.float32)
    assert np.abs(x).max() < 2.0
    assert abs(x.mean()) < 0.03 and 0.85 < x.std() < 0.91  # stddev of N(0,1) cut at 2: 0.8796


def test_uniform_int_is_minval_plus_word_modulo_range():
    kc = philox.seed_to_key_counter(3, 1)
    words = philox.random_words(np, kc, 3).reshape(-1)[:9].astype(np.int64)
    np.testing.assert_array_equal(philox.uniform_int(np, kc, (9,), -4, 9, np.int32),
                                  words % 13 - 4)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("rate", [0.1, 0.25, 0.5, 1 / 3, 0.999])
def test_uniform_at_least_is_the_float_comparison(dtype, rate):
    kc = philox.seed_to_key_counter(11, 3)
    dtype = np.dtype(dtype)
    threshold = np.asarray(rate, dtype=dtype)
    expected = philox.uniform_float(np, kc, (5, 501), dtype) >= threshold
    np.testing.assert_array_equal(philox.uniform_at_least(np, kc, (5, 501), threshold, dtype),
                                  expected)


class _OtherArrayModule:
    """numpy under another name: exercises the path cupy takes (no CPU-thread split)."""

    def __getattr__(self, name):
        return getattr(np, name)


def test_the_non_numpy_path_gives_the_same_words_and_draws():
    xp, kc = _OtherArrayModule(), philox.seed_to_key_counter(9, 4)
    np.testing.assert_array_equal(philox.random_words(xp, kc, 40000),
                                  philox.random_words(np, kc, 40000))
    np.testing.assert_array_equal(philox.uniform_float(xp, kc, (3, 77), np.float32),
                                  philox.uniform_float(np, kc, (3, 77), np.float32))
    # normals: numpy arrays take glibc's logf/sincosf where the rounding is close; other
    # array modules keep the float64 functions rounded (an ulp or two apart at most)
    for draw in (philox.normal, philox.truncated_normal):
        np.testing.assert_array_max_ulp(draw(xp, kc, (3, 77), np.float32),
                                        draw(np, kc, (3, 77), np.float32), maxulp=2)


def test_box_muller_transcendentals_are_glibcs():
    # TensorFlow's BoxMullerFloat calls glibc's logf and sincosf; kerasish takes glibc's
    # value wherever the float64 one rounded might differ: every value must equal libm's
    from kerasish.backend.kernels import eigen_math
    if eigen_math._libm("logf") is None:
        pytest.skip("no C math library")
    grid = (np.random.default_rng(0).integers(0, 2 ** 23, 20000) * 2.0 ** -23)
    u1 = np.maximum(grid.astype(np.float32), np.float32(1e-7))
    v1 = (2.0 * np.pi * grid).astype(np.float32)
    for name, x in (("logf", u1), ("sinf", v1), ("cosf", v1)):
        libm = eigen_math.libm_float(name, None, x)
        np.testing.assert_array_equal(philox._glibc_float(np, name, x), libm, err_msg=name)
