#!/usr/bin/env bash
# Redoes the pictures in docs/images from a real run: the IMDB TensorBoard example, a local
# TensorBoard, and headless Chromium (Debian: apt-get install chromium graphviz).
# Run from the repository root with the project's venv: bash docs/images/make_screenshots.sh
set -euo pipefail
logs=$(mktemp -d)
.venv/bin/python examples/tensorboard_imdb.py "$logs"
.venv/bin/tensorboard --logdir "$logs" --port 6123 --host 127.0.0.1 >/dev/null 2>&1 &
board=$!
trap 'kill $board' EXIT
sleep 8
shot() {  # shot <tab> <file>: swiftshader gives WebGL (the charts) without a GPU
  chromium --headless=new --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
    --hide-scrollbars --window-size=1400,1000 --virtual-time-budget=20000 \
    --screenshot="docs/images/$2" "http://127.0.0.1:6123/#$1" >/dev/null 2>&1
}
shot scalars tensorboard_scalars.png
shot histograms tensorboard_histograms.png
shot projector tensorboard_projector.png
cp "$logs/model.png" docs/images/plot_model_imdb.png
cp "$logs/curves.png" docs/images/learning_curves_imdb.png
