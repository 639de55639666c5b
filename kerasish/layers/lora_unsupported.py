"""The LoRA entry points Keras's Dense, EinsumDense, Embedding and convolutions have."""


class LoRAUnsupported:
    """Mixin: `lora_enabled` is False and `enable_lora` raises (kerasish has no LoRA).

    Example:
        >>> keras.layers.Dense(2).lora_enabled
        False
    """

    lora_enabled = False  # as Keras's attribute

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform",
                    b_initializer="zeros"):
        """Not available: kerasish has no LoRA adapters.

        Raises:
            NotImplementedError: always (Keras adds trainable low-rank kernels).
        """
        raise NotImplementedError(
            f"{type(self).__name__}.enable_lora(rank={rank!r}): LoRA adapters are not "
            "supported by kerasish.")
