"""Module-level functions that process pools can pickle (tests only)."""
import numpy as np


def square(x):
    return x * x


def python_loop_sum(x):
    """A pure-Python function that holds the GIL."""
    total = 0
    for i in range(int(x)):
        total += i
    return np.int64(total)


def fail_on_three(x):
    if x == 3:
        raise ValueError("three is not allowed")
    return x
