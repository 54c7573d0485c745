"""Trainer: ``compile``, ``fit``, ``evaluate``, ``predict`` and the ``*_on_batch`` methods of a
Model, as Keras 3 defines them.

One step of ``fit`` is ``train_step(data)``: the forward pass under a `GradientTape`, the
compiled loss plus ``model.losses``, the gradients of the trainable weights, the optimizer's
update, then the metrics; it returns the logs (a dict of scalars). Override ``train_step`` to
customize training and keep everything else (callbacks, progress bar, validation). The step
runs as a traced ``finegrad.function`` (``reduce_retracing=True``: the smaller last batch
reuses one graph with an open batch size) unless ``run_eagerly=True``. Before the first
traced step the model, its metrics and its optimizer are built eagerly on the first batch, so
every variable exists before the trace.
"""
import warnings
from typing import Any

import numpy as np

from finegrad._src.ad.tape import GradientTape
from finegrad._src.graph.tracing.function import function
from finegrad._src.keras import compile_utils, data_adapters, dtype_policies
from finegrad._src.keras.compile_utils import reduction
from finegrad._src.keras.optimizers import serialization as optimizers_serialization
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer
from finegrad._src.keras.callbacks.base import CallbackList
from finegrad._src.keras.data_adapters import unpack_x_y_sample_weight
from finegrad._src.keras.nodes import flatten, map_structure
from finegrad._src.keras.object_serialization import (deserialize_keras_object,
                                                      serialize_keras_object)
from finegrad._src.ops.math.arithmetic import add
from finegrad._src.ops.array.shape_queries import shape as shape_of
from finegrad._src.tensor import Tensor


def _pythonify(logs):
    """Logs as Python floats, in sorted order (as Keras 3 hands them to callbacks)."""
    out = {}
    for k in sorted(logs):
        v = logs[k]
        if isinstance(v, dict):
            out.update(_pythonify(v))
            continue
        a = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
        out[k] = float(a) if a.size == 1 else a
    return dict(sorted(out.items()))


def _in_order(logs, names):
    results = [logs[n] for n in names if n in logs]
    results += [logs[k] for k in sorted(logs) if k not in names]
    return results[0] if len(results) == 1 else results


class Trainer:
    """The training half of `Model` (mixed in before `Layer`)."""

    # what the Layer half of a Model gives (declared for type checkers)
    dtype_policy: Any
    losses: Any
    trainable_weights: Any
    trainable_variables: Any
    __call__: Any

    def __init__(self) -> None:
        self.compiled = False
        self.optimizer: Any = None
        self.loss: Any = None
        self._compile_state: Any = None
        self.stop_training = False
        self.history = None
        self.train_function = self.test_function = self.predict_function = None

    # --- compile -------------------------------------------------------------------------------

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, loss_weights: Any = None,
                metrics: Any = None, weighted_metrics: Any = None, run_eagerly: Any = False,
                steps_per_execution: Any = 1, jit_compile: Any = "auto",
                auto_scale_loss: Any = True) -> Any:
        """Set the optimizer, the loss and the metrics that ``fit`` and ``evaluate`` use.

        Args:
            optimizer: an optimizer or its name (``"adam"``).
            loss: a loss (name, function or `Loss`); a list or dict for several outputs.
            loss_weights: scalars weighting each output's loss.
            metrics: metric names or objects (``"accuracy"`` resolved from the data's
                shapes); a list per output, or a dict by output name, for several outputs.
            weighted_metrics: metrics that receive the sample weights.
            run_eagerly: run each step in Python instead of as a traced function.
            steps_per_execution: the number of steps one call of the traced step function
                runs (``fit``, ``evaluate`` and ``predict`` call the batch hooks of the
                callbacks once per call, with the first and the last step's index, as
                Keras 3).
            jit_compile: True compiles the step with XLA through JAX (``finegrad.function``'s
                ``jit_compile``); "auto" and False do not.
            auto_scale_loss: under the ``mixed_float16`` policy, wrap the optimizer in a
                `LossScaleOptimizer`.
        """
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) \
                or steps_per_execution < 1:
            raise ValueError(f"Model.compile: steps_per_execution must be a positive integer, "
                             f"got {steps_per_execution!r}")
        opt = optimizers_serialization.get(optimizer)
        policy = dtype_policies.global_policy() if self.dtype_policy is None \
            else self.dtype_policy
        if auto_scale_loss and policy.name == "mixed_float16" and \
                not isinstance(opt, LossScaleOptimizer):
            opt = LossScaleOptimizer(opt, name="loss_scale_optimizer")
        self.optimizer, self.loss = opt, loss
        self._compile_state = {
            "loss": compile_utils.CompileLoss(loss, loss_weights) if loss is not None else None,
            "metrics": compile_utils.CompileMetrics(metrics, weighted_metrics)
            if (metrics or weighted_metrics) else None,
            "tracker": reduction.Mean(name="loss"),
            "run_eagerly": bool(run_eagerly), "jit_compile": jit_compile is True,
            "built": False, "steps_per_execution": steps_per_execution}
        self.compiled = True
        self.__dict__["_compile_config"] = {   # (not tracked: saving walks the optimizer once)
            "optimizer": opt, "loss": loss, "loss_weights": loss_weights, "metrics": metrics,
            "weighted_metrics": weighted_metrics, "run_eagerly": bool(run_eagerly),
            "steps_per_execution": steps_per_execution, "jit_compile": jit_compile is True}
        self.train_function = self.test_function = self.predict_function = None

    def get_compile_config(self) -> Any:
        """The ``compile`` arguments, serialized (what a ``.keras`` file keeps); ``{}`` before
        ``compile``."""
        if not self.compiled or getattr(self, "_compile_config", None) is None:
            return {}
        return serialize_keras_object(self.__dict__["_compile_config"])

    def compile_from_config(self, config: Any) -> None:
        """``compile`` with `get_compile_config`'s arguments, then build the optimizer's
        variables (so that saved optimizer state can be loaded into them), as Keras."""
        if type(self).compile is not Trainer.compile:
            warnings.warn("`compile()` was not called as part of model loading because the "
                          "model's `compile()` method is custom. All subclassed Models that "
                          "have `compile()` overridden should also override "
                          "`get_compile_config()` and `compile_from_config(config)`. "
                          "Alternatively, you can call `compile()` manually after loading.",
                          stacklevel=2)
            return
        self.compile(**deserialize_keras_object(config))
        if getattr(self, "built", False):
            self.optimizer.build(self.trainable_variables)

    @property
    def run_eagerly(self):
        return bool(self._compile_state and self._compile_state["run_eagerly"])

    @run_eagerly.setter
    def run_eagerly(self, value):
        if self._compile_state is not None:
            self._compile_state["run_eagerly"] = bool(value)
        self.train_function = self.test_function = self.predict_function = None

    @property
    def metrics(self):
        """The loss tracker, the compiled metrics and the metrics the model holds."""
        out = []
        state = self._compile_state
        if state is not None:
            out.append(state["tracker"])
            if state["metrics"] is not None:
                out.append(state["metrics"])
            if state["loss"] is not None:
                out += [m for m in state["loss"].metrics if m is not None]
        out += [v for k, v in self.__dict__.items() if k != "_compile_state"
                and _is_metric(v) and all(v is not m for m in out)]
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> Any:
        for m in self.metrics:
            m.reset_state()

    def _assert_compiled(self, where):
        if not self.compiled:
            raise ValueError(f"You must call `compile()` before using the model: "
                             f"Model.{where}")

    # --- the steps -----------------------------------------------------------------------------

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None, training: Any = True) -> Any:
        """The compiled loss of ``y_pred`` against ``y``, plus the model's `losses`."""
        state = self._compile_state
        total = None
        if state is not None and state["loss"] is not None and y is not None:
            total = state["loss"](y, y_pred, sample_weight)
        extra = compile_utils.sum_losses(self.losses, "float32") if self.losses else None
        if extra is not None:
            total = extra if total is None else add(total, extra)
        if total is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Update the compiled metrics and return every metric's result."""
        compiled = self._compile_state["metrics"] if self._compile_state else None
        if compiled is not None and y is not None:
            compiled.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> Any:
        logs = {}
        for m in self.metrics:
            r = m.result()
            if isinstance(r, dict):
                logs.update(r)
            else:
                logs[m.name] = r
        return logs

    def _batch_size(self, x):
        first = flatten(x)[0]
        return shape_of(first)[0]

    def train_step(self, data: Any) -> Any:
        """One training step on ``data`` (a batch): forward, loss, gradients, update;
        returns the logs. Override to customize ``fit``."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
            self._compile_state["tracker"].update_state(loss,
                                                        sample_weight=self._batch_size(x))
            scaled = self.optimizer.scale_loss(loss) \
                if hasattr(self.optimizer, "scale_loss") else loss
        weights = self.trainable_weights
        if weights:
            grads = tape.gradient(scaled, weights)
            self.optimizer.apply_gradients(zip(grads, weights, strict=True))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> Any:
        """One evaluation step: forward (``training=False``), loss, metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                 training=False)
        self._compile_state["tracker"].update_state(loss, sample_weight=self._batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data: Any) -> Any:
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _make(self, which):
        attr = f"{which}_function"
        fn = getattr(self, attr)
        if fn is not None:
            return fn
        step = getattr(self, f"{which}_step")
        if self._steps_per_execution > 1:   # one call: a list of batches, a step for each
            step = _steps(step, keep_all=which == "predict")
        eager = self.run_eagerly if self.compiled else False
        jit = bool(self._compile_state and self._compile_state["jit_compile"])
        fn = step if eager else function(step, reduce_retracing=True, jit_compile=jit or None)
        setattr(self, attr, fn)
        return fn

    @property
    def _steps_per_execution(self):
        state = self._compile_state
        return state["steps_per_execution"] if state else 1

    def _one_step(self, which, batch):
        """The step function run on one batch (a list of one with steps_per_execution)."""
        fn = self._make(which)
        if self._steps_per_execution > 1:
            out = fn([batch])
            return out[0] if which == "predict" else out
        return fn(batch)

    def make_train_function(self, force: Any = False) -> Any:
        if force:
            self.train_function = None
        return self._make("train")

    def make_test_function(self, force: Any = False) -> Any:
        if force:
            self.test_function = None
        return self._make("test")

    def make_predict_function(self, force: Any = False) -> Any:
        if force:
            self.predict_function = None
        return self._make("predict")

    def _build_for(self, batch):
        """Build the model, the compiled loss and metrics, and the optimizer on a first
        batch, eagerly, so the traced steps create no variables."""
        state = self._compile_state
        if state is None or state["built"]:
            return
        x, y, _ = unpack_x_y_sample_weight(batch)
        y_pred = self(x, training=False)
        if y is not None:
            for key in ("loss", "metrics"):
                if state[key] is not None and not state[key].built:
                    state[key].build(self, y, y_pred)
        if self.optimizer is not None and not getattr(self.optimizer, "built", True):
            self.optimizer.build(self.trainable_variables)
        state["built"] = True

    # --- loops ---------------------------------------------------------------------------------

    def fit(self, x: Any = None, y: Any = None, batch_size: Any = None, epochs: Any = 1,
            verbose: Any = "auto", callbacks: Any = None, validation_split: Any = 0.0,
            validation_data: Any = None, shuffle: Any = True, class_weight: Any = None,
            sample_weight: Any = None, initial_epoch: Any = 0, steps_per_epoch: Any = None,
            validation_steps: Any = None, validation_batch_size: Any = None,
            validation_freq: Any = 1) -> Any:
        """Train for ``epochs`` epochs; returns the `History`.

        Args:
            x, y, sample_weight: arrays or tensors (nested for several inputs/outputs), or
                ``x`` a generator or dataset of ``(x, y[, sample_weight])`` batches.
            batch_size: rows per batch for arrays (32 when None).
            epochs: the epoch to stop at (counted from 0, starting at ``initial_epoch``).
            verbose: "auto" or 1 (a progress bar on a terminal, one line per epoch on a
                pipe), 2 (one line per epoch), 0 (silent).
            callbacks: `Callback` objects.
            validation_split: the fraction of the array data (taken from the end, before
                shuffling) held out for validation.
            validation_data: ``(x, y[, sample_weight])`` or a dataset, evaluated after each
                epoch (``val_`` logs).
            shuffle: shuffle the array rows each epoch.
            class_weight: {class index: weight}, turned into sample weights.
            initial_epoch: the epoch to start at (to resume training).
            steps_per_epoch, validation_steps: batches per epoch / per validation.
            validation_batch_size: the validation batch size (``batch_size`` when None).
            validation_freq: validate every this many epochs.
        """
        self._assert_compiled("fit")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapters.train_validation_split(
                (x, y, sample_weight), validation_split)
        data = data_adapters.batches(x, y, sample_weight, batch_size, steps_per_epoch,
                                     shuffle, class_weight, where="fit")
        val = _validation(validation_data)
        cbs = CallbackList(callbacks, add_history=True, add_progbar=verbose != 0, model=self,
                           verbose=verbose, epochs=epochs, steps=data.num_batches)
        self.stop_training = False
        cbs.on_train_begin()
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            logs = self._run_epoch(data, cbs, "train")
            epoch_logs = dict(logs)
            if val is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self.evaluate(val[0], val[1], sample_weight=val[2],
                                         batch_size=validation_batch_size or batch_size,
                                         steps=validation_steps, callbacks=cbs,
                                         return_dict=True, _in_fit=True)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self.stop_training:
                break
        cbs.on_train_end(logs)
        return self.history

    def _run_epoch(self, data, cbs, which):
        step_fn, built = None, False
        begin, end = f"on_{which}_batch_begin", f"on_{which}_batch_end"
        wants_logs = cbs.wants(end)
        raw, n = None, self._steps_per_execution
        for step, batches in _executions(data, n):
            if not built:
                self._build_for(batches[0])
                step_fn, built = self._make(which), True
            getattr(cbs, begin)(step)
            raw = step_fn(batches if n > 1 else batches[0])
            if wants_logs:
                getattr(cbs, end)(step + n - 1, _pythonify(raw))
            if which == "train" and self.stop_training:
                break
        if raw is None:
            if data.num_batches is None or data.num_batches:
                raise ValueError(f"The data given to {which} had no batches (an exhausted "
                                 f"generator?)")
            return {}
        return _pythonify(self.get_metrics_result() if self.run_eagerly else raw)

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Any = None, verbose: Any = "auto",
                 sample_weight: Any = None, steps: Any = None, callbacks: Any = None,
                 return_dict: Any = False, **kwargs: Any) -> Any:
        """The loss and metrics on the data: a scalar (loss only), a list (``loss`` first),
        or a dict with ``return_dict=True``."""
        self._assert_compiled("evaluate")
        in_fit = kwargs.pop("_in_fit", False)
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        data = data_adapters.batches(x, y, sample_weight, batch_size, steps, False,
                                     where="evaluate")
        cbs = callbacks if in_fit else CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
            steps=data.num_batches)
        self.reset_metrics()
        cbs.on_test_begin()
        logs = self._run_epoch(data, cbs, "test")
        cbs.on_test_end(logs)
        return logs if return_dict else _in_order(logs, self.metrics_names)

    def predict(self, x: Any, batch_size: Any = None, verbose: Any = "auto", steps: Any = None,
                callbacks: Any = None) -> Any:
        """The model's outputs on ``x`` (arrays, a generator or a dataset), as NumPy arrays
        stacked over the batches."""
        data = data_adapters.batches(x, None, None, batch_size, steps, False,
                                     where="predict")
        cbs = CallbackList(callbacks, add_progbar=verbose != 0, model=self, verbose=verbose,
                           epochs=1, steps=data.num_batches)
        fn, outputs, n = None, [], self._steps_per_execution
        cbs.on_predict_begin()
        for step, batches in _executions(data, n):
            fn = fn or self._make("predict")
            cbs.on_predict_batch_begin(step)
            outs = fn(batches) if n > 1 else [fn(batches[0])]
            outputs += [map_structure(lambda t: np.asarray(t.numpy()), o) for o in outs]
            cbs.on_predict_batch_end(step + n - 1, {"outputs": outs[-1]})
        cbs.on_predict_end()
        if not outputs:
            raise ValueError("Model.predict: the data had no batches")
        return _concat(outputs)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Any = None, return_dict: Any = False) -> Any:
        """One training step on one batch; the logs (``loss`` first)."""
        self._assert_compiled("train_on_batch")
        data = data_adapters.ArrayBatches(x, y, sample_weight, batch_size=_rows(x),
                                          class_weight=class_weight) \
            if data_adapters.is_array_like(x) else None
        batch = next(iter(data)) if data is not None else (x, y, sample_weight)
        self._build_for(batch)
        logs = _pythonify(self._one_step("train", batch))
        return logs if return_dict else _in_order(logs, self.metrics_names)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: Any = False) -> Any:
        """One evaluation step on one batch (the metrics reset first)."""
        self._assert_compiled("test_on_batch")
        batch = next(iter(data_adapters.ArrayBatches(x, y, sample_weight,
                                                     batch_size=_rows(x))))
        self._build_for(batch)
        self.reset_metrics()
        logs = _pythonify(self._one_step("test", batch))
        return logs if return_dict else _in_order(logs, self.metrics_names)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs on one batch, as NumPy arrays."""
        batch = next(iter(data_adapters.ArrayBatches(x, batch_size=_rows(x))))
        return map_structure(lambda t: np.asarray(t.numpy()), self._one_step("predict", batch))


def _executions(data, n):
    """(index of the first step, [its batches]) of each execution of ``n`` steps (the last
    one shorter when the data run out), as Keras 3's epoch iterator groups them."""
    it = iter(data)
    step = 0
    while True:
        batches = []
        for batch in it:
            batches.append(batch)
            if len(batches) == n:
                break
        if not batches:
            return
        yield step, batches
        step += n


def _steps(step, keep_all):
    """A function running ``step`` on each batch of a list: the last step's logs, or every
    output (``keep_all``, for predict)."""
    def steps(batches):
        outs = [step(batch) for batch in batches]
        return outs if keep_all else outs[-1]
    return steps


def _is_metric(v):
    return all(hasattr(v, a) for a in ("update_state", "result", "reset_state")) and \
        not isinstance(v, type)


def _rows(x):
    first = flatten(x)[0]
    return int(first.shape[0]) if hasattr(first, "shape") else len(first)


def _validation(validation_data):
    if validation_data is None:
        return None
    if isinstance(validation_data, (tuple, list)):
        x, y, sw = unpack_x_y_sample_weight(tuple(validation_data))
        return x, y, sw
    return validation_data, None, None


def _concat(outputs):
    first = outputs[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_concat([o[i] for o in outputs]) for i in range(len(first)))
    if isinstance(first, dict):
        return {k: _concat([o[k] for o in outputs]) for k in first}
    if isinstance(first, (np.ndarray, Tensor)):
        return np.concatenate([np.asarray(o) for o in outputs], axis=0)
    return first
