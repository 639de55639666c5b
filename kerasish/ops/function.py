"""`keras.Function`: a graph of operations on KerasTensors, replayed on new inputs.

The graph is the one every layer and op records when called on KerasTensors
(`Node`s reached through each tensor's `_keras_history`). The helpers that
order and check it (`map_graph`, `run_nodes`, ...) are shared with the
functional `Model` (`kerasish.models.functional`), so there is one graph
engine: a `Function` is the same graph without weights or the Layer API.
"""
from kerasish.autodiff.keras_tensor import KerasTensor, tracing
from kerasish.ops.operation import Operation
from kerasish.utils import tree


class Function(Operation):
    """A computation graph linking input KerasTensors to output KerasTensors.

    Like a functional `Model` without state: calling it on new inputs
    (arrays or tensors, same structure as `inputs`) runs the recorded
    operations; calling it on KerasTensors records it as one operation of
    a larger graph.

    Args:
        inputs: a KerasTensor or a nested structure of them (`keras.Input`
            tensors, bare `keras.KerasTensor`s, or intermediate tensors of a
            graph, which then become the Function's inputs).
        outputs: a KerasTensor or a nested structure of them, computable from
            `inputs` alone.
        name: the Function's name ("function", "function_1", ... by default).

    Example:
        >>> a = keras.KerasTensor(shape=(None, 2, 3))
        >>> b = keras.KerasTensor(shape=(None, 2, 3))
        >>> fn = keras.Function(inputs=[a, b], outputs=keras.ops.sigmoid(a + b))
        >>> fn([np.ones((4, 2, 3)), np.zeros((4, 2, 3))]).shape
        (4, 2, 3)
    """

    def __init__(self, inputs, outputs, name=None):
        super().__init__(name=name)
        self._inputs_struct = tree.map_structure(lambda x: x, inputs)
        self._outputs_struct = tree.map_structure(lambda x: x, outputs)
        self._inputs = tree.flatten(inputs)
        self._outputs = tree.flatten(outputs)
        for what, flat, struct in (("inputs", self._inputs, inputs),
                                   ("outputs", self._outputs, outputs)):
            if not flat:
                raise ValueError(f"`{what}` argument cannot be empty. Received:\n"
                                 f"inputs={inputs}\noutputs={outputs}")
            for t in flat:
                if not isinstance(t, KerasTensor):
                    raise ValueError(
                        f"All `{what}` values must be KerasTensors. Received: {what}={struct} "
                        f"including invalid value {t} of type {type(t)}")
        check_outputs_connected(self._inputs, self._outputs, self._outputs_struct)
        self._nodes, self._operations, self._nodes_by_depth = map_graph(
            self._inputs, self._outputs)
        check_unique_names(self._operations)

    @property
    def operations(self):
        """The graph's operations (InputLayers, layers, ops), ordered by depth as Keras."""
        return self._operations[:]

    @property
    def inputs(self):
        """Flat list of the symbolic inputs."""
        return self._inputs

    @property
    def outputs(self):
        """Flat list of the symbolic outputs."""
        return self._outputs

    def call(self, inputs):
        """Runs the graph on new inputs.

        Args:
            inputs: arrays or tensors, in the structure of `inputs`.

        Returns:
            the outputs, in the structure of `outputs`.
        """
        self._assert_input_compatibility(inputs)
        return self._run_through_graph(inputs)

    def compute_output_spec(self, inputs):
        """Output KerasTensors for symbolic inputs (the graph's own when shapes match).

        Args:
            inputs: KerasTensors in the structure of `inputs`.

        Returns:
            fresh KerasTensors in the structure of `outputs`.
        """
        self._assert_input_compatibility(inputs)
        if all(tuple(x.shape) == tuple(ref.shape)
               for x, ref in zip(tree.flatten(inputs), self._inputs)):
            return tree.map_structure(lambda x: KerasTensor(x.shape, x.dtype),
                                      self._outputs_struct)
        with tracing():  # each operation answers with its output spec, records nothing
            return self._run_through_graph(inputs)

    def compute_output_shape(self, input_shape):
        """Output shape(s) for input shape(s) (the inputs' dtypes are kept).

        Args:
            input_shape: a shape tuple or a structure of them, as `inputs`.

        Returns:
            the output shape(s), in the structure of `outputs`.
        """
        flat = _flat_shapes(input_shape)
        specs = [KerasTensor(s, ref.dtype) for s, ref in zip(flat, self._inputs)]
        outputs = self.compute_output_spec(tree.pack_sequence_as(self._inputs_struct, specs))
        return tree.map_structure(lambda x: tuple(x.shape), outputs)

    def _run_through_graph(self, inputs):
        tensor_map = {id(kt): v for kt, v in zip(self._inputs, tree.flatten(inputs))}
        run_nodes(self._nodes, tensor_map, lambda node, args, kwargs: node.layer(*args, **kwargs))
        return tree.pack_sequence_as(self._outputs_struct,
                                     [tensor_map[id(t)] for t in self._outputs])

    def _assert_input_compatibility(self, inputs):
        if not _same_structure(inputs, self._inputs_struct):
            raise ValueError(
                "Function was called with an invalid input structure. Expected input "
                f"structure: {self._inputs_struct}\nReceived input structure: {inputs}")
        for x, ref in zip(tree.flatten(inputs), self._inputs):
            shape = tuple(getattr(x, "shape", ()))
            if len(shape) != len(ref.shape) or any(
                    d is not None and r is not None and d != r for d, r in zip(shape, ref.shape)):
                raise ValueError(
                    f"{type(self).__name__} was passed incompatible inputs. For input "
                    f"'{ref.name}', expected shape {ref.shape}, but received instead a tensor "
                    f"with shape {shape}.")


def _same_structure(a, b):
    """True when `a` and `b` nest alike (container types included, dict keys compared)."""
    if not tree.is_nested(a) or not tree.is_nested(b):
        return tree.is_nested(a) == tree.is_nested(b)
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b) and \
            all(_same_structure(a[k], b[k]) for k in a)
    return type(a) is type(b) and len(a) == len(b) and \
        all(_same_structure(x, y) for x, y in zip(a, b))


def _flat_shapes(shapes):
    if isinstance(shapes, tuple) and all(d is None or isinstance(d, int) for d in shapes):
        return [shapes]
    if isinstance(shapes, dict):
        return [s for k in sorted(shapes) for s in _flat_shapes(shapes[k])]
    return [s for v in shapes for s in _flat_shapes(v)]


def run_nodes(nodes, tensor_map, call_node):
    """Runs graph nodes in order, filling `tensor_map` ({id(KerasTensor): value}).

    Args:
        nodes: the nodes to run, parents first (`map_graph`'s first result).
        tensor_map: values of the graph inputs, by KerasTensor id; extended in place.
        call_node: `call_node(node, args, kwargs)` -> the node's outputs, given its
            arguments with KerasTensors replaced by values.
    """
    def lookup(x):
        return tensor_map[id(x)] if isinstance(x, KerasTensor) else x

    for node in nodes:
        args = tree.map_structure(lookup, list(node.call_args))
        kwargs = {k: tree.map_structure(lookup, v) for k, v in node.call_kwargs.items()}
        outputs = call_node(node, args, kwargs)
        for kt, value in zip(node.output_tensors, tree.flatten(outputs)):
            tensor_map[id(kt)] = value


def map_graph(inputs, outputs):
    """Orders the graph's nodes and operations as Keras does (by depth, then DFS order).

    Args:
        inputs: flat list of input KerasTensors.
        outputs: flat list of output KerasTensors.

    Returns:
        (nodes to execute, in order; operations incl. InputLayers, in Keras's
        order; {depth: nodes at that depth}, input nodes included, as Keras's
        `_nodes_by_depth`).
    """
    input_ids = {id(t) for t in inputs}
    finished, in_progress, ordered, layer_index = set(), set(), [], {}

    def visit(tensor):
        if tensor._keras_history is None:  # a bare keras.KerasTensor: only as an input
            if id(tensor) in input_ids:
                return
            raise ValueError(f"Graph disconnected: cannot find parent for tensor {tensor}: it "
                             "is neither produced by an operation nor one of the inputs.")
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(tensor) in input_ids and not node.is_input:
            # an intermediate tensor given as an input: the operation that made it is
            # outside the graph (as Keras's map_graph)
            finished.add(id(node))
            return
        if id(node) in in_progress:
            raise ValueError(f"The graph has a cycle through layer '{layer.name}'.")
        layer_index.setdefault(id(layer), (len(layer_index), layer))
        in_progress.add(id(node))
        if not node.is_input and id(tensor) not in input_ids:
            for t in node.input_tensors:
                visit(t)
        finished.add(id(node))
        in_progress.discard(id(node))
        ordered.append(node)

    for t in outputs:
        visit(t)
    depth_of_node, depth_of_layer = {}, {}
    for node in reversed(ordered):
        depth = max(depth_of_node.get(id(node), 0), depth_of_layer.get(id(node.layer), 0))
        depth_of_layer[id(node.layer)] = depth
        depth_of_node[id(node)] = depth
        for parent in node.parent_nodes:
            depth_of_node[id(parent)] = max(depth + 1, depth_of_node.get(id(parent), 0))
    for t in inputs:
        # As Keras: an Input no output depends on still belongs to the model (depth 0).
        if t._keras_history is None:
            continue
        layer, node_index, _ = t._keras_history
        if id(layer) not in depth_of_layer and layer._inbound_nodes[node_index].is_input:
            depth_of_layer[id(layer)] = 0
            layer_index[id(layer)] = (-1, layer)
            node = layer._inbound_nodes[node_index]
            depth_of_node[id(node)] = 0
            ordered.append(node)
    check_connected(ordered, input_ids)
    # As Keras's `_run_through_graph`: deepest first, and within a depth in the order
    # the depth walk above first reached each node (a node before its parents, from the
    # last output back), not the order of the DFS
    reached = {node_id: i for i, node_id in enumerate(depth_of_node)}
    nodes = sorted((n for n in ordered if not n.is_input and not is_input_passthrough(n, input_ids)),
                   key=lambda n: (-depth_of_node[id(n)], reached[id(n)]))
    layers = sorted((entry for entry in layer_index.values()),
                    key=lambda e: (-depth_of_layer[id(e[1])], e[0]))
    nodes_by_depth = {}
    for node in ordered:
        nodes_by_depth.setdefault(depth_of_node[id(node)], []).append(node)
    return nodes, [layer for _, layer in layers], nodes_by_depth


def check_unique_names(layers):
    """Keras's error for two layers (or ops) with one name in one graph."""
    names = [layer.name for layer in layers]
    for name in names:
        if names.count(name) != 1:
            raise ValueError(f'The name "{name}" is used {names.count(name)} times in the '
                             "model. All operation names should be unique.")


def is_input_passthrough(node, input_ids):
    """True for a node whose outputs are all graph inputs (nothing to run)."""
    return all(id(t) in input_ids for t in node.output_tensors)


def paths(struct, prefix=()):
    """The flatten-order paths of a nested structure's leaves ("", "0", "a.1", ...)."""
    if isinstance(struct, dict):
        return [p for k in sorted(struct) for p in paths(struct[k], prefix + (k,))]
    if isinstance(struct, (list, tuple)):
        return [p for i, v in enumerate(struct) for p in paths(v, prefix + (i,))]
    return [".".join(str(p) for p in prefix)]


def check_outputs_connected(inputs, outputs, outputs_struct):
    """Keras's error for an output that cannot be computed from `inputs`."""
    input_ids = {id(t) for t in inputs}
    for path, tensor in zip(paths(outputs_struct), outputs):
        stack, seen = [tensor], set()
        while stack:
            t = stack.pop()
            if id(t) in input_ids or id(t) in seen:
                continue
            if t._keras_history is None:
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")
            seen.add(id(t))
            layer, node_index, _ = t._keras_history
            node = layer._inbound_nodes[node_index]
            if node.is_input:
                raise ValueError(f"Output with path `{path}` is not connected to `inputs`")
            stack.extend(node.input_tensors)


def check_connected(nodes, input_ids):
    """Keras's "Graph disconnected" errors: every node's inputs computable from the inputs."""
    available = set(input_ids)
    for node in nodes:
        if node.is_input:
            if not all(id(t) in input_ids for t in node.output_tensors):
                name = node.layer.name
                raise ValueError(
                    f"Graph disconnected: cannot find parent for the input '{name}'. The model's "
                    "outputs depend on an Input that was not passed in `inputs`."
                )
            continue
        if is_input_passthrough(node, input_ids):
            continue
        for t in node.input_tensors:
            if id(t) not in available:
                raise ValueError(
                    f"Graph disconnected: layer '{node.layer.name}' needs a tensor that cannot be "
                    "computed from the model's inputs."
                )
        available.update(id(t) for t in node.output_tensors)
