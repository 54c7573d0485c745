"""What ``compile`` makes of its ``loss``, ``loss_weights`` and ``metrics`` arguments.

`CompileLoss` matches the losses to the model's outputs (one loss for all, a list in output
order, or a dict by output name), weights them and sums them; with several outputs it also
tracks each output's loss (``<output>_loss`` in the logs). `CompileMetrics` resolves metric
names as Keras does: ``"accuracy"`` becomes binary, sparse categorical or categorical
accuracy from the shapes of the first batch's targets and predictions; metrics of a model
with several outputs are named ``<output>_<metric>``.
"""
from finegrad._src.keras import losses as losses_module

from finegrad._src.keras.metrics import accuracy as accuracy_metrics
from finegrad._src.keras.metrics import base as metrics_base
from finegrad._src.keras.metrics import loss_metrics, reduction
from finegrad._src.keras.metrics import serialization as metrics_serialization
from finegrad._src.keras.nodes import flatten
from finegrad._src.ops.array.structural import cast
from finegrad._src.ops.math.arithmetic import add, multiply
from finegrad._src.ops.array.structural import reduce_sum


def _output_names(model, n):
    outputs = getattr(model, "outputs", None)
    if outputs and len(outputs) == n:
        return [t._keras_history[0].layer.name if t._keras_history else f"output_{i}"
                for i, t in enumerate(outputs)]
    return [f"output_{i}" for i in range(n)] if n > 1 else ["output"]


def by_output(y, names):
    """Targets in output order: a dict of targets is read by output name, as Keras does."""
    if isinstance(y, dict) and names and all(n in y for n in names):
        return [y[n] for n in names]
    return flatten(y)


def _match(spec, names, what):
    """One entry of ``spec`` per output: the same for all, by position, or by name."""
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(f"compile: the `{what}` dict has keys {unknown} that are not "
                             f"output names; the outputs are {names}")
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)):
        if len(names) == 1 and len(spec) != 1 and what == "metrics":
            return [list(spec)]
        if len(spec) != len(names):
            raise ValueError(f"compile: `{what}` has {len(spec)} entries for a model with "
                             f"{len(names)} outputs {names}")
        return list(spec)
    return [spec] * len(names)


def _loss_object(identifier):
    if identifier is None:
        return None
    obj = losses_module.get(identifier)
    if not isinstance(obj, losses_module.Loss):
        obj = losses_module.LossFunctionWrapper(obj, name=getattr(obj, "__name__", None))
    return obj


class CompileLoss:
    """The compiled loss: ``total = sum_i weight_i * loss_i(y_true_i, y_pred_i, sw_i)``."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._loss, self._weights, self.output_names = loss, loss_weights, output_names
        self.built = False
        self.metrics = []

    def build(self, model, y_true, y_pred):
        n = len(flatten(y_pred))
        names = self.output_names or _output_names(model, n)
        self.output_names = names
        self.losses = [_loss_object(x) for x in _match(self._loss, names, "loss")]
        weights = self._weights if self._weights is not None else 1.0
        self.weights = [1.0 if w is None else float(w) for w in _match(weights, names,
                                                                          "loss_weights")]
        if n > 1:
            self.metrics = [reduction.Mean(name=f"{name}_loss") if fn is not None
                            else None for name, fn in zip(names, self.losses, strict=True)]
        self.built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        trues, preds = by_output(y_true, self.output_names), flatten(y_pred)
        sws = flatten(sample_weight) if isinstance(sample_weight, (list, tuple, dict)) \
            else [sample_weight] * len(preds)
        if len(trues) != len(preds):
            raise ValueError(f"compile loss: the model has {len(preds)} outputs but "
                             f"{len(trues)} targets were given")
        total = None
        for i, (fn, w) in enumerate(zip(self.losses, self.weights, strict=True)):
            if fn is None:
                continue
            value = fn(trues[i], preds[i], sample_weight=sws[i])
            if self.metrics:
                self.metrics[i].update_state(value)
            term = value if w == 1.0 else multiply(value, w)
            total = term if total is None else add(total, term)
        return total

    def reset_state(self):
        for m in self.metrics:
            if m is not None:
                m.reset_state()

    def results(self):
        return {m.name: m.result() for m in self.metrics if m is not None}


def resolve_metric(identifier, y_true, y_pred, loss_name=None):
    """A Metric object for ``identifier``, "accuracy" / "crossentropy" by the shapes."""
    if identifier is None:
        return None
    text = str(identifier).lower() if isinstance(identifier, str) else None
    if text in ("accuracy", "acc", "crossentropy", "ce"):
        t_shape, p_shape = tuple(y_true.shape), tuple(y_pred.shape)
        binary = p_shape[-1:] == (1,)
        sparse = len(t_shape) < len(p_shape) or (t_shape[-1:] == (1,) and
                                                 p_shape[-1:] != (1,))
        accuracy = text in ("accuracy", "acc")
        module, kind = (accuracy_metrics, "Accuracy") if accuracy else \
            (loss_metrics, "Crossentropy")
        prefix = "Binary" if binary else "SparseCategorical" if sparse else "Categorical"
        return getattr(module, prefix + kind)(name=identifier)
    obj = metrics_serialization.get(identifier)
    if not isinstance(obj, metrics_base.Metric):
        name = identifier if isinstance(identifier, str) else getattr(obj, "__name__", None)
        obj = reduction.MeanMetricWrapper(obj, name=name)
    elif isinstance(identifier, str):
        obj.name = identifier
    return obj


class CompileMetrics:
    """The compiled metrics (``metrics`` and ``weighted_metrics``), built on the first
    batch."""

    def __init__(self, metrics, weighted_metrics=None, output_names=None):
        self._metrics, self._weighted = metrics, weighted_metrics
        self.output_names = output_names
        self.name = "compile_metrics"
        self.built = False
        self.metrics = []

    def build(self, model, y_true, y_pred):
        preds = flatten(y_pred)
        names = self.output_names or _output_names(model, len(preds))
        self.output_names = names
        trues = by_output(y_true, names)
        self._per_output = []
        for spec, weighted in ((self._metrics, False), (self._weighted, True)):
            if not spec:
                continue
            for i, entries in enumerate(_match(spec, names, "metrics")):
                for ident in entries if isinstance(entries, (list, tuple)) else [entries]:
                    m = resolve_metric(ident, trues[i], preds[i])
                    if m is None:
                        continue
                    if len(preds) > 1:
                        m.name = f"{names[i]}_{m.name}"
                    self._per_output.append((i, m, weighted))
        self.metrics = [m for _, m, _ in self._per_output]
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        trues, preds = by_output(y_true, self.output_names), flatten(y_pred)
        sws = flatten(sample_weight) if isinstance(sample_weight, (list, tuple, dict)) \
            else [sample_weight] * len(preds)
        for i, m, weighted in self._per_output:
            # Keras: `metrics` are unweighted, `weighted_metrics` get the sample weights
            m.update_state(trues[i], preds[i], sample_weight=sws[i] if weighted else None)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        return {m.name: m.result() for m in self.metrics}

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]


def sum_losses(values, dtype):
    """The sum of scalar-ized losses (``model.losses``), in ``dtype``."""
    total = None
    for v in values:
        v = reduce_sum(cast(v, dtype)) if v.dtype.name != dtype else reduce_sum(v)
        total = v if total is None else add(total, v)
    return total
