"""Distillation losses: how a student's outputs are compared with a teacher's."""
import types

from kerasish import losses, ops, tree
from kerasish import saving


class DistillationLoss:
    """Base class of distillation losses: subclasses define `compute_loss`.

    Example:
        >>> class MeanGap(keras.distillation.DistillationLoss):
        ...     def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        ...         return keras.ops.mean(keras.ops.abs(teacher_outputs - student_outputs))
    """

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The scalar loss between teacher and student outputs.

        Args:
            teacher_outputs: the teacher's outputs (a tensor or a structure of them).
            student_outputs: the student's outputs, the same structure.
            **kwargs: extra arguments of custom losses.

        Returns:
            a scalar tensor.
        """
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs):
        """Raises ValueError unless both outputs have the same structure.

        Args:
            teacher_outputs, student_outputs: the outputs compared.
        """
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student):
        """Raises ValueError when the models cannot be distilled with this loss (none here).

        Args:
            teacher, student: the two models.
        """


class FeatureDistillation(DistillationLoss):
    """`loss(teacher_features, student_features)`, averaged, summed over outputs.

    The features are the final outputs, or the outputs of the named layers
    (Functional or Sequential models only).

    Args:
        loss: a loss name ("mse", "cosine_similarity"...), a loss object, or a
            structure of them matching the outputs (None skips an output; at
            least one must be given).
        teacher_layer_name: the teacher layer to read, or None for the output.
        student_layer_name: the student layer to read, or None for the output.

    Example:
        >>> loss = keras.distillation.FeatureDistillation(
        ...     loss="mse", teacher_layer_name="dense_1", student_layer_name="dense_1")
    """

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = tree.map_structure(_loss_function, loss)
        if all(entry is None for entry in tree.flatten(self.loss)):
            raise ValueError("The `loss` argument in `FeatureDistillation` must contain at "
                             "least one non-`None` value.")

    def validate_model_compatibility(self, teacher, student):
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [role for role, model in (("teacher", teacher), ("student", student))
                          if getattr(model, "inputs", None) is None]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(subclassed)} model(s) appear to be "
                    "subclassed (no symbolic inputs/outputs). Either use Functional/Sequential "
                    "models, or use FeatureDistillation without layer names (to distill final "
                    "outputs only), or use LogitsDistillation instead.")
        for role, model, name in (("teacher", teacher, self.teacher_layer_name),
                                  ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as e:
                    raise ValueError(f"In {role} model: {e}") from e

    def validate_outputs(self, teacher_outputs, student_outputs):
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except ValueError as e:
            raise ValueError(f"Loss structure mismatch. Loss: {self.loss}, outputs: "
                             f"{teacher_outputs}. Error: {e}") from e

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def apply(loss_fn, teacher, student):
            return 0.0 if loss_fn is None else ops.mean(loss_fn(teacher, student))
        values = tree.map_structure(apply, self.loss, teacher_outputs, student_outputs)
        return ops.sum(ops.stack(tree.flatten(values)))

    def get_config(self):
        """{"loss", "teacher_layer_name", "student_layer_name"}, as Keras writes them."""
        return {"loss": serialize_losses(self.loss),
                "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = deserialize_losses(config["loss"])
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """`loss(teacher / T, student / T)` on logits, averaged, summed over outputs.

    As Keras 3.15.1: both logits are divided by the temperature `T`; a
    `keras.losses.KLDivergence` *object* compares their softmaxes and is
    scaled by `T^2`, while any other loss (including the default name
    "kl_divergence", which resolves to the plain function) is applied to the
    scaled logits themselves.

    Args:
        temperature: positive softening temperature.
        loss: a loss name, a loss object, or a structure of them matching the
            outputs (None skips an output; at least one must be given).

    Example:
        >>> loss = keras.distillation.LogitsDistillation(
        ...     temperature=3.0, loss=keras.losses.KLDivergence())
    """

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = tree.map_structure(_loss_function, loss)
        if all(entry is None for entry in tree.flatten(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")
        if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
            raise ValueError(f"temperature must be a number, got {type(temperature)}")
        if temperature <= 0.0:
            raise ValueError("temperature must be positive.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        teacher = tree.map_structure(lambda x: ops.divide(x, self.temperature), teacher_outputs)
        student = tree.map_structure(lambda x: ops.divide(x, self.temperature), student_outputs)

        def apply(loss_fn, teacher_logits, student_logits):
            if loss_fn is None:
                return 0.0
            if isinstance(loss_fn, losses.KLDivergence):
                value = ops.mean(loss_fn(ops.softmax(teacher_logits, axis=-1),
                                         ops.softmax(student_logits, axis=-1)))
                return value * (self.temperature ** 2)
            return ops.mean(loss_fn(teacher_logits, student_logits))
        values = tree.map_structure(apply, self.loss, teacher, student)
        return ops.sum(ops.stack(tree.flatten(values)))

    def get_config(self):
        """{"temperature", "loss"}, as Keras writes them."""
        return {"temperature": self.temperature, "loss": serialize_losses(self.loss)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = deserialize_losses(config["loss"])
        return cls(**config)


def _loss_function(entry):
    """A loss name becomes the loss (`keras.losses.get`); objects and None stay."""
    return losses.get(entry) if isinstance(entry, str) else entry


def serialize_losses(loss):
    """Keras's config of a loss structure: a plain function is written as
    `{"module": "builtins", "class_name": "function", "config": name, ...}`."""
    if isinstance(loss, (list, tuple)):
        return [serialize_losses(entry) for entry in loss]
    if isinstance(loss, dict):
        return {k: serialize_losses(v) for k, v in loss.items()}
    if isinstance(loss, types.FunctionType):
        return {"module": "builtins", "class_name": "function", "config": loss.__name__,
                "registered_name": "function"}
    return saving.serialize_keras_object(loss)


def deserialize_losses(config):
    """The loss structure `serialize_losses` wrote."""
    if isinstance(config, list):
        return [deserialize_losses(entry) for entry in config]
    if isinstance(config, dict) and "class_name" not in config:
        return {k: deserialize_losses(v) for k, v in config.items()}
    if isinstance(config, dict) and config["class_name"] == "function":
        return losses.get(config["config"])
    if config is None or isinstance(config, str):
        return _loss_function(config)
    return losses.deserialize(config)
