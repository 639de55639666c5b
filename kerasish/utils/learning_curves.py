"""`plot_history`: loss and metric curves of one or more `fit` runs (matplotlib)."""


def _histories(history):
    """`{label: {metric: values}}` from a History, a dict, or a list/dict of them."""
    def as_dict(h):
        return dict(getattr(h, "history", h))
    if isinstance(history, (list, tuple)):
        return {f"run {i + 1}": as_dict(h) for i, h in enumerate(history)}
    if isinstance(history, dict) and history and all(
            isinstance(v, dict) or hasattr(v, "history") for v in history.values()):
        return {str(label): as_dict(h) for label, h in history.items()}
    return {"": as_dict(history)}


def plot_history(history, metrics=None, path=None):
    """One figure with a panel per metric: training and validation curves of each run.

    Goes beyond Keras (which leaves plotting to the user). Needs matplotlib
    (`pip install "kerasish[plot]"`).

    Args:
        history: the `History` that `fit` returns, its `.history` dict, or a list
            (or `{label: history}` dict) of those to compare several runs.
        metrics: names to plot (default: every key without the `val_` prefix, loss first).
        path: if given, the figure is saved there (format from the extension).

    Returns:
        the matplotlib `Figure`.

    Example:
        >>> history = model.fit(x, y, validation_split=0.2, epochs=5, verbose=0)
        >>> keras.utils.plot_history(history, path="curves.png")
    """
    try:  # optional dependency: the `plot` extra
        import matplotlib
        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError as err:
        raise ImportError('keras.utils.plot_history needs matplotlib: '
                          f'pip install "kerasish[plot]" ({err})') from None
    runs = _histories(history)
    names = metrics or sorted({k for h in runs.values() for k in h if not k.startswith("val_")},
                              key=lambda k: (k != "loss", k))
    if not names:
        raise ValueError("plot_history: the history has no metrics to plot "
                         f"(keys: {sorted({k for h in runs.values() for k in h})}).")
    figure, axes = plt.subplots(1, len(names), figsize=(4.5 * len(names), 3.5), squeeze=False)
    for ax, name in zip(axes[0], names):
        for label, values in runs.items():
            prefix = f"{label} " if label else ""
            for key, style, kind in ((name, "-", "train"), ("val_" + name, "--", "validation")):
                if key in values:
                    epochs = range(1, len(values[key]) + 1)
                    ax.plot(epochs, values[key], style, marker="o", markersize=3,
                            label=f"{prefix}{kind}")
        ax.set_title(name)
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend()
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure
