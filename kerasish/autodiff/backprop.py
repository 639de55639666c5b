"""The backward walk over recorded nodes (see `recording.py` for the node format).

It iterates the nodes in reverse order: recording order is already a
topological order, so no recursion is needed and chains of any length work.
Gradients of one tensor are summed with the engine's own `accumulate` Op.
"""
from kerasish.autodiff.primitives import accumulate, zeros_like
from kerasish.autodiff.recording import _active


def _relevant(nodes, sources):
    """The nodes downstream of `sources` (in order) and the ids they reach."""
    reach = {id(s) for s in sources}
    relevant = []
    for node in nodes:
        for x in node[0]:
            if id(x) in reach:
                relevant.append(node)
                for o in node[1]:
                    reach.add(id(o))
                break
    return relevant, reach


def backprop(nodes, targets, seeds, sources):
    """Walks `nodes` backwards from `targets` and returns {id(tensor): grad}.

    Only nodes downstream of a source are visited. Gradients of
    intermediates are dropped as soon as their producer has consumed them.

    Args:
        nodes: recorded nodes in recording order.
        targets: flat list of target Tensors.
        seeds: their upstream gradients.
        sources: flat list of source Tensors.

    Returns:
        dict mapping id(source) (and other reached ids) to gradient Tensors.
    """
    relevant, reach = _relevant(nodes, sources)
    keep = {id(s) for s in sources}
    grads = {}
    for t, seed in zip(targets, seeds):
        key = id(t)
        if key in reach:
            prev = grads.get(key)
            grads[key] = seed if prev is None else accumulate(prev, seed)
    get, pop = grads.get, grads.pop
    for inputs, outputs, backward, name, needs, saved in reversed(relevant):
        if len(outputs) == 1:
            key = id(outputs[0])
            g = get(key) if key in keep else pop(key, None)
            if g is None:
                continue
            if needs is True and _active:
                _refuse_higher_order(name, inputs, (g,))
        else:
            out_grads = [get(id(o)) if id(o) in keep else pop(id(o), None) for o in outputs]
            if all(g is None for g in out_grads):
                continue
            if needs is True and _active:
                _refuse_higher_order(name, inputs, out_grads)
            g = _fill_missing(outputs, out_grads)
        if needs.__class__ is tuple:   # an Op: backward(saved, needs, grads)
            in_grads = backward(saved, needs, g)
        else:                          # a hand-recorded backward (see `record`)
            in_grads = backward(g) if saved is None else backward(*saved, g)
        for x, g in zip(inputs, in_grads):
            if g is not None:
                key = id(x)
                if key in reach:
                    prev = get(key)
                    grads[key] = g if prev is None else accumulate(prev, g)
    return grads


def _fill_missing(outputs, grads):
    return [zeros_like(o) if g is None else g for o, g in zip(outputs, grads)]


def _refuse_higher_order(name, inputs, grads):
    """Raises when an outer tape would need to see inside a fused backward."""
    for tape in _active:
        if tape._differentiating:
            continue  # a persistent tape recording its own backward sees only first order here
        watched = tape._watched
        if any(id(x) in watched for x in inputs) or any(
                g is not None and id(g) in watched for g in grads):
            raise NotImplementedError(
                f"Op '{name}' has a fused backward written in raw array code, so a "
                "second-order gradient through it cannot be recorded. Compute this "
                "part with fine-grained kerasish.ops (e.g. matmul + add instead of "
                "the fused dense) when you need higher-order gradients.")
