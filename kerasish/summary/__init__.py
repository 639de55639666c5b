"""kerasish.summary: TensorBoard event files for custom loops, as `tf.summary` writes them.

    writer = keras.summary.create_file_writer("logs/custom")
    with writer.as_default(step=0):
        keras.summary.scalar("loss", 0.25)

The event files are TensorBoard's real format (TFRecord framing with CRC32C,
`Event`/`Summary` protocol buffers), written by TensorBoard's own event writer;
install the extra with `pip install "kerasish[tensorboard]"`.
"""
from kerasish.summary.summaries import histogram, image, keras_model, scalar, text
from kerasish.summary.writer import (SummaryWriter, create_file_writer, flush,
                                     get_step, record_if, set_step)

__all__ = ["SummaryWriter", "create_file_writer", "flush", "get_step", "histogram", "image",
           "keras_model", "record_if", "scalar", "set_step", "text"]
