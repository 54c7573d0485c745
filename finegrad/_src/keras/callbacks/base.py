"""`Callback`, the list ``fit`` drives (`CallbackList`), `History`, `ProgbarLogger` and
`LambdaCallback`.

``fit`` calls, in order: ``on_train_begin``; per epoch ``on_epoch_begin``, per batch
``on_train_batch_begin`` / ``on_train_batch_end`` (logs: the metrics so far, Python
floats), then (with validation data) the ``on_test_*`` hooks, then ``on_epoch_end`` with the
epoch's logs (``val_`` entries included); ``on_train_end``. ``evaluate`` and ``predict`` call
the ``on_test_*`` and ``on_predict_*`` hooks. A callback sets ``model.stop_training`` to
end training after the current batch.
"""

from __future__ import annotations

from typing import Any

from finegrad._src.keras.callbacks.progbar import Progbar

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    pass


class Callback:
    """The base class of callbacks: every hook does nothing; override the ones you need.

    ``self.model`` is the model being trained, ``self.params`` a dict with ``verbose``,
    ``epochs`` and ``steps``.

    >>> import finegrad as tf
    >>> class Count(tf.keras.callbacks.Callback):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         print("epoch", epoch, sorted(logs))
    >>> Count().on_epoch_end(0, {"loss": 1.0})
    epoch 0 ['loss']
    """

    def __init__(self) -> None:
        self.params = None
        self._model = None

    def set_params(self, params: Any) -> Any:
        self.params = params

    def set_model(self, model: Any) -> Any:
        self._model = model

    @property
    def model(self) -> Any:
        return self._model

    def on_batch_begin(self, batch: Any, logs: Any = None) -> Any:
        """A backwards-compatible alias of `on_train_batch_begin`."""

    def on_batch_end(self, batch: Any, logs: Any = None) -> Any:
        """A backwards-compatible alias of `on_train_batch_end`."""

    def on_epoch_begin(self, epoch: Any, logs: Any = None) -> Any:
        pass

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        pass

    def on_train_batch_begin(self, batch: Any, logs: Any = None) -> Any:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: Any, logs: Any = None) -> Any:
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: Any, logs: Any = None) -> Any:
        pass

    def on_test_batch_end(self, batch: Any, logs: Any = None) -> Any:
        pass

    def on_predict_batch_begin(self, batch: Any, logs: Any = None) -> Any:
        pass

    def on_predict_batch_end(self, batch: Any, logs: Any = None) -> Any:
        pass

    def on_train_begin(self, logs: Any = None) -> Any:
        pass

    def on_train_end(self, logs: Any = None) -> Any:
        pass

    def on_test_begin(self, logs: Any = None) -> Any:
        pass

    def on_test_end(self, logs: Any = None) -> Any:
        pass

    def on_predict_begin(self, logs: Any = None) -> Any:
        pass

    def on_predict_end(self, logs: Any = None) -> Any:
        pass


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` is the list of epoch losses;
    ``fit`` returns it.

    >>> import finegrad as tf
    >>> h = tf.keras.callbacks.History()
    >>> h.on_train_begin(); h.on_epoch_end(0, {"loss": 0.5}); h.history
    {'loss': [0.5]}
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: Any = None) -> Any:
        self.epoch = []

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> Any:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Prints the progress bar (``verbose=1``) or one line per epoch (``verbose=2``)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen, self.progbar, self.target = 0, None, None
        self.verbose, self.epochs, self._in_fit = 1, 1, False

    def set_params(self, params: Any) -> None:
        super().set_params(params)
        self.verbose = 1 if params["verbose"] == "auto" else params["verbose"]
        self.epochs, self.target = params["epochs"], params["steps"]

    def on_train_begin(self, logs: Any = None) -> None:
        self._in_fit = True

    def on_test_begin(self, logs: Any = None) -> None:
        if not self._in_fit:
            self._reset()

    def on_predict_begin(self, logs: Any = None) -> None:
        self._reset()

    def on_epoch_begin(self, epoch: Any, logs: Any = None) -> None:
        self._reset()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}", flush=True)

    def on_train_batch_end(self, batch: Any, logs: Any = None) -> None:
        self._update(batch, logs)

    def on_test_batch_end(self, batch: Any, logs: Any = None) -> None:
        if not self._in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch: Any, logs: Any = None) -> None:
        self._update(batch, None)

    def on_epoch_end(self, epoch: Any, logs: Any = None) -> None:
        self._finalize(logs)

    def on_test_end(self, logs: Any = None) -> None:
        if not self._in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs: Any = None) -> None:
        self._finalize(logs)

    def _reset(self):
        self.seen = 0
        self.progbar = Progbar(target=self.target, verbose=self.verbose)

    def _update(self, batch, logs):
        if self.progbar is None:
            self._reset()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs):
        if self.progbar is None:
            self._reset()
        if self.target is None:
            self.target = self.progbar.target = self.seen
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)


class LambdaCallback(Callback):
    """A callback from functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``.

    Args:
        on_epoch_begin, on_epoch_end: called with ``(epoch, logs)``.
        on_train_begin, on_train_end: called with ``(logs)``.
        on_train_batch_begin, on_train_batch_end: called with ``(batch, logs)``.
        **kwargs: other hooks by name (``on_test_end=...``), as Keras allows.

    >>> import finegrad as tf
    >>> cb = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: print(e, logs))
    >>> cb.on_epoch_end(3, {"loss": 0.25})
    3 {'loss': 0.25}
    """

    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None,
                 on_train_batch_begin: Any = None, on_train_batch_end: Any = None,
                 **kwargs: Any) -> None:
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end,
                 "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class CallbackList(Callback):
    """The callbacks of one ``fit`` / ``evaluate`` / ``predict`` call, called together (a
    `History` and a `ProgbarLogger` added as Keras adds them)."""

    def __init__(self, callbacks: Any = None, add_history: Any = False, add_progbar: Any = False,
                 model: Any = None, **params: Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)
        # batch hooks cost a Python call per batch each: only those overridden are called
        self._batch_hooks = {name: [getattr(c, name) for c in self.callbacks
                                    if _overrides(c, name)]
                             for name in _BATCH_HOOKS}

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        for c in self.callbacks:
            c.set_params(params)

    def wants(self, hook: Any) -> bool:
        """Whether some callback overrides batch hook ``hook`` (logs are then needed)."""
        return bool(self._batch_hooks[hook])

    def _call_batch(self, name, batch, logs):
        for fn in self._batch_hooks[name]:
            fn(batch, logs)


_BATCH_HOOKS = ("on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end")
_ALIASES = {"on_train_batch_begin": "on_batch_begin", "on_train_batch_end": "on_batch_end"}


def _overrides(callback, name):
    if name in callback.__dict__:     # a LambdaCallback's function
        return True
    if getattr(type(callback), name) is not getattr(Callback, name):
        return True
    alias = _ALIASES.get(name)
    return alias is not None and (alias in callback.__dict__ or
                                  getattr(type(callback), alias) is not getattr(Callback, alias))


def _batch_hook(name):
    def hook(self: CallbackList, batch_index: int, logs: Any = None) -> None:
        self._call_batch(name, batch_index, logs)
    hook.__name__ = name
    return hook


def _epoch_hook(name):
    def hook(self: CallbackList, epoch: int, logs: Any = None) -> None:
        for c in self.callbacks:
            getattr(c, name)(epoch, logs)
    hook.__name__ = name
    return hook


def _run_hook(name):
    def hook(self: CallbackList, logs: Any = None) -> None:
        for c in self.callbacks:
            getattr(c, name)(logs)
    hook.__name__ = name
    return hook


for _name in _BATCH_HOOKS:
    setattr(CallbackList, _name, _batch_hook(_name))
for _name in ("on_epoch_begin", "on_epoch_end"):
    setattr(CallbackList, _name, _epoch_hook(_name))
for _name in ("on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
              "on_predict_begin", "on_predict_end"):
    setattr(CallbackList, _name, _run_hook(_name))
