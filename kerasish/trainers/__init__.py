"""The training loop mixed into Model (compile, fit, evaluate, predict)."""
