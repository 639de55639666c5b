"""Distiller: trains a student model on its labels and on a frozen teacher's outputs."""
from kerasish import metrics, ops, saving, tree
from kerasish.distillation.distillation_loss import _loss_function
from kerasish.models import Model, Sequential


class Distiller(Model):
    """`w * student_loss + (1 - w) * sum_i weight_i * distillation_loss_i`, as Keras 3.15.1.

    The teacher is frozen (`trainable = False`); calling the distiller runs
    the student. `compile(loss=...)` gives the student's supervised loss
    (kept apart from Keras's compiled loss); each distillation loss compares
    the teacher's outputs (inference mode) with the student's predictions, or
    the outputs of the named layers (read through one feature-extractor model
    per network). The trackers `student_loss`, `distillation_loss` and
    `total_loss` are reported beside `loss`.

    Args:
        teacher: a trained `keras.Model`.
        student: the `keras.Model` to train (same input/output shapes and dtypes).
        distillation_losses: a `DistillationLoss` or a list of them.
        distillation_loss_weights: one weight per distillation loss (default 1.0 each).
        student_loss_weight: `w` in [0, 1].
        name: the model's name.

    Example:
        >>> distiller = keras.distillation.Distiller(
        ...     teacher, student, keras.distillation.LogitsDistillation(temperature=3.0))
        >>> distiller.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        >>> distiller.fit(x, y, epochs=1)
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name="distiller", **kwargs):
        super().__init__(name=name, **kwargs)
        _check_models(teacher, student)
        self.teacher, self.student = teacher, student
        if not isinstance(student_loss_weight, (int, float)) or \
                isinstance(student_loss_weight, bool):
            raise ValueError(f"student_loss_weight must be a number, got "
                             f"{type(student_loss_weight)}")
        if student_loss_weight < 0.0 or student_loss_weight > 1.0:
            raise ValueError(f"student_loss_weight must be between 0.0 and 1.0, got "
                             f"{student_loss_weight}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("'distillation_losses' cannot be `None`. Provide a distillation "
                             "loss (e.g., LogitsDistillation or FeatureDistillation) or a list "
                             "of distillation losses.")
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(f"Number of distillation_loss_weights "
                             f"({len(distillation_loss_weights)}) must match number of "
                             f"distillation_losses ({len(distillation_losses)})")
        self.distillation_losses = distillation_losses
        self.distillation_loss_weights = distillation_loss_weights
        for loss in distillation_losses:
            loss.validate_model_compatibility(teacher, student)
        self._teacher_features = _feature_extractor(teacher, _layer_names(
            distillation_losses, "teacher_layer_name"))
        self._student_features = _feature_extractor(student, _layer_names(
            distillation_losses, "student_layer_name"))
        self.teacher.trainable = False
        self.student_loss_tracker = metrics.Mean(name="student_loss")
        self.distillation_loss_tracker = metrics.Mean(name="distillation_loss")
        self.total_loss_tracker = metrics.Mean(name="total_loss")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """Compiles the student's training.

        Args:
            optimizer: the optimizer of the student's weights.
            loss: the student's supervised loss (required): a name, a loss object,
                or a structure of them matching the outputs.
            metrics: a list of metrics of the student's predictions.
            **kwargs: passed on to `Model.compile` (the loss itself is not).
        """
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        self._student_loss = tree.map_structure(_loss_function, loss)
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None, **kwargs):
        return self.student(inputs, training=training, **kwargs)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The weighted student and distillation losses (sample weights unused, as Keras).

        Args:
            x: the inputs (the teacher and the feature extractors run on them).
            y: the targets (the student loss is skipped when None).
            y_pred: the student's predictions (computed when None).
            sample_weight: unused.
            training: the mode of the student's forward pass.

        Returns:
            the scalar total loss; the three trackers are updated.
        """
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            values = tree.flatten(tree.map_structure(lambda fn, target, pred: fn(target, pred),
                                                     self._student_loss, y, y_pred))
            student_loss = ops.sum(ops.stack(values)) if len(values) > 1 else values[0]
            if len(getattr(student_loss, "shape", ())) > 0:
                student_loss = ops.mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            distillation_loss = self._distillation_loss(x, y_pred)
        total = ops.add(ops.multiply(self.student_loss_weight, student_loss),
                        ops.multiply(ops.subtract(1.0, self.student_loss_weight),
                                     distillation_loss))
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total)
        return total

    def _distillation_loss(self, x, y_pred):
        teacher = self._teacher_features(x, training=False) if self._teacher_features \
            else {"final_output": self.teacher(x, training=False)}
        student = self._student_features(x, training=True) if self._student_features \
            else {"final_output": y_pred}
        total = 0.0
        for loss, weight in zip(self.distillation_losses, self.distillation_loss_weights):
            if getattr(loss, "teacher_layer_name", None) is not None:
                teacher_out = teacher[loss.teacher_layer_name]
                student_out = student[loss.student_layer_name or "final_output"]
            else:
                teacher_out, student_out = teacher["final_output"], y_pred
            loss.validate_outputs(teacher_out, student_out)
            value = loss.compute_loss(teacher_out, student_out)
            if len(getattr(value, "shape", ())) > 0:
                raise ValueError(
                    f"Distillation loss {type(loss).__name__} returned a non-scalar loss with "
                    f"shape {value.shape}. The compute_loss method must return a scalar tensor.")
            total = ops.add(total, ops.multiply(weight, value))
        return total

    def reset_metrics(self):
        super().reset_metrics()
        for tracker in (self.student_loss_tracker, self.distillation_loss_tracker,
                        self.total_loss_tracker):
            tracker.reset_state()

    def get_config(self):
        config = super().get_config()
        config.update({
            "teacher": saving.serialize_keras_object(self.teacher),
            "student": saving.serialize_keras_object(self.student),
            "distillation_losses": [saving.serialize_keras_object(loss)
                                    for loss in self.distillation_losses],
            "distillation_loss_weights": self.distillation_loss_weights,
            "student_loss_weight": self.student_loss_weight})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = saving.deserialize_keras_object(config[key], custom_objects)
        config["distillation_losses"] = [saving.deserialize_keras_object(loss, custom_objects)
                                         for loss in config["distillation_losses"]]
        return cls(**config)


def _check_models(teacher, student):
    """Keras's checks: two Models with compatible input/output shapes and equal dtypes."""
    for role, model in (("Teacher", teacher), ("Student", student)):
        if not isinstance(model, Model):
            raise ValueError(f"{role} must be a keras.Model, got {type(model)}")
    for what in ("inputs", "outputs"):
        ours, theirs = getattr(teacher, what, None), getattr(student, what, None)
        if ours is None or theirs is None:
            continue
        for t, s in zip(tree.flatten(ours), tree.flatten(theirs)):
            _check_shapes(tuple(t.shape), tuple(s.shape), what[:-1])
    for what in ("inputs", "outputs"):
        ours, theirs = getattr(teacher, what, None), getattr(student, what, None)
        if ours is None or theirs is None:
            return
        for t, s in zip(tree.flatten(ours), tree.flatten(theirs)):
            if t.dtype != s.dtype:
                raise ValueError(f"Teacher and student {what[:-1]} dtypes must match. Teacher: "
                                 f"{t.dtype}, Student: {s.dtype}.")


def _check_shapes(shape1, shape2, context):
    if len(shape1) != len(shape2):
        raise ValueError(f"Teacher and student {context} shapes have different dimensions. "
                         f"Teacher: {shape1}, Student: {shape2}.")
    for a, b in zip(shape1, shape2):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Teacher and student {context} shapes are incompatible. Teacher: "
                             f"{shape1}, Student: {shape2}. All dimensions must match.")


def _layer_names(distillation_losses, attribute):
    names = []
    for loss in distillation_losses:
        name = getattr(loss, attribute, None)
        if name and name not in names:
            names.append(name)
    return names


def _feature_extractor(model, layer_names):
    """A Model from the network's inputs to {"final_output", *layer outputs}, or None."""
    if not layer_names:
        return None
    if getattr(model, "inputs", None) is None:
        raise ValueError(f"Cannot create feature extractor for {model.name}. The model has no "
                         "symbolic inputs attribute.")
    final = model.layers[-1].output if isinstance(model, Sequential) else model.output
    outputs = {"final_output": final}
    for name in layer_names:
        outputs[name] = model.get_layer(name=name).output
    return Model(inputs=model.inputs, outputs=outputs,
                 name=f"{model.name}_multi_feature_extractor")
