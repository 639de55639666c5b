"""`Model.get_state_tree` / `set_state_tree`: a model's variables as nested dicts keyed
by the parts of their paths (Keras 3's layout)."""

_KINDS = ("trainable_variables", "non_trainable_variables", "optimizer_variables",
          "metrics_variables")


def variables_by_kind(model):
    """The four variable lists of the state tree, by their keys."""
    optimizer = getattr(model, "optimizer", None)
    return {"trainable_variables": model.trainable_variables,
            "non_trainable_variables": model.non_trainable_variables,
            "optimizer_variables": list(optimizer.variables) if optimizer is not None else [],
            "metrics_variables": model.metrics_variables}


def nested_values(variables, value_format):
    """{path part: {...: value}} for `variables` (paths must be unique)."""
    if value_format not in ("backend_tensor", "numpy_array"):
        raise ValueError("Invalid `value_format` argument. Expected one of "
                         "{'numpy_array', 'backend_tensor'}. Received: "
                         f"value_format={value_format}")
    flat = {}
    for variable in variables:
        if variable.path in flat:
            raise ValueError(
                f"The following variable path is found twice in the model: '{variable.path}'. "
                "`get_state_tree()` can only be called when all variable paths are unique. "
                "Make sure to give unique names to your layers (and other objects).")
        flat[variable.path] = variable.value if value_format == "backend_tensor" \
            else variable.numpy()
    nested = {}
    for path, value in flat.items():
        *parents, leaf = path.split("/")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def flat_values(nested, prefix=""):
    """{"a/b/c": value} from a nested dict."""
    out = {}
    for key, value in nested.items():
        if isinstance(value, dict):
            out.update(flat_values(value, f"{prefix}{key}/"))
        else:
            out[f"{prefix}{key}"] = value
    return out


def assign_state_tree(model, state_tree):
    """Assigns every value of `state_tree` to the model variable with its path."""
    by_kind = variables_by_kind(model)
    for kind, nested in state_tree.items():
        if kind not in by_kind:
            raise ValueError(f"Unknown variable name: {kind}")
        variables = {v.path: v for v in by_kind[kind]}
        for path, value in flat_values(nested).items():
            if path in variables:
                variables[path].assign(value)
