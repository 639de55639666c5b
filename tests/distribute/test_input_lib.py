"""kerasish.distribute.input_lib: the shuffled order of sharded in-memory arrays."""
import types

import numpy as np

from kerasish.data.data_adapters import ArrayAdapter
from kerasish.distribute.input_lib import ShardedArrayAdapter


def _world():
    return types.SimpleNamespace(rank=0, size=1, bcast_object=lambda value: value)


def test_sharded_shuffle_batch_shuffles_within_batches_in_order():
    x = np.arange(23, dtype="float32")[:, None]
    adapter = ArrayAdapter(x, np.zeros((23, 1), "float32"), batch_size=5, shuffle="batch")
    strategy = types.SimpleNamespace(_world=_world(), num_replicas_in_sync=1, _num_local=1)
    np.random.seed(3)
    order, starts = ShardedArrayAdapter(adapter, strategy)._order()
    batches = [order[s:s + 5].tolist() for s in starts]
    assert [sorted(b) for b in batches] == [list(range(s, min(s + 5, 23))) for s in starts]
    assert any(b != sorted(b) for b in batches)
