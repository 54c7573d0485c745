"""Layer: Keras 3's base class of every layer and model, on finegrad's engine.

A layer owns variables (`KerasVariable`, a finegrad `Variable`) and sub-layers. It is built
on its first call: ``__call__`` takes the first input's shape, runs ``build(input_shape)``
(which creates the weights with `add_weight`), then ``call``. Weights are found the way Keras
finds them: the layer's own variables in creation order (trainable ones first), then each
sub-layer's, sub-layers taken from the layer's attributes (and the lists, tuples and dicts in
them) in the order they were set. ``training`` given to the outermost call reaches every
nested call that does not pass its own. Under a mixed dtype policy inputs are cast to the
compute dtype and variable reads inside ``call`` are cast too (`dtype_policies`).

A call on symbolic inputs (`Input`) records a node of the functional graph (`nodes`): the
ops run under finegrad's graph builder, so output shapes come from the same shape rules a
traced `finegrad.function` uses.
"""

from __future__ import annotations

from typing import Any

import inspect
import threading

import numpy as np

from finegrad._src import dtypes
from finegrad._src.api.checkpoint import restore_on_creation
from finegrad._src.api.contexts import init_scope
from finegrad._src.keras import dtype_policies, naming, nodes
from finegrad._src.keras.dtype_policies import KerasVariable
from finegrad._src.keras.input_spec import assert_input_compatibility
from finegrad._src.keras import constraints, initializers, regularizers
from finegrad._src.ops.array.structural import cast, convert_to_tensor
from finegrad._src.ops.array.shape_queries import shape
from finegrad._src.api.scopes import get_current_name_scope, name_scope
from finegrad._src.shapes import TensorShape
from finegrad._src.tensor import Tensor
from finegrad._src.variables import Variable

_SERIALIZABLE = (str, int, float, bool, type(None))


class _CallContext(threading.local):
    def __init__(self):
        self.entry = None      # the outermost layer being called
        self.training = None   # the training flag the outermost call resolved


_context = _CallContext()


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    return [value]


def _auto_config(cls, args, kwargs):
    """The constructor's arguments (defaults included), when all are plain values (Keras's
    automatic config)."""
    try:
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    config = {}
    for key, param in list(bound.signature.parameters.items())[1:]:
        if param.kind == param.VAR_KEYWORD:
            config.update(bound.arguments.get(key, {}))
        elif param.kind != param.VAR_POSITIONAL:
            config[key] = bound.arguments[key]
    if isinstance(config.get("dtype"), dtype_policies.DTypePolicy):
        config["dtype"] = dtype_policies.serialize(config["dtype"])
    if not all(isinstance(v, _SERIALIZABLE) for v in _flat(config)):
        return None
    return config


class Layer:
    """The base class of layers: state (weights) plus a computation (``call``).

    Subclasses create weights in ``build(input_shape)`` (or ``__init__``) with `add_weight`
    and compute in ``call(inputs, training=None, mask=None)``.

    Args:
        activity_regularizer: applied to the outputs; its value joins `losses`.
        trainable: whether the weights are updated by training.
        dtype: a dtype policy (``"float32"``, ``"mixed_float16"``...) or dtype; the global
            policy when None.
        autocast: cast floating inputs and variable reads to the compute dtype.
        name: the layer's name; the class name in snake case, made unique, when None.
        **kwargs: ``input_shape`` / ``input_dim`` (accepted, as Keras); anything else is a
            ``ValueError``.

    >>> import finegrad as fg
    >>> class Linear(fg.keras.layers.Layer):
    ...     def __init__(self, units=2, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.units = units
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1], self.units),
    ...                                  initializer="ones")
    ...     def call(self, x):
    ...         return fg.matmul(x, self.w)
    >>> layer = Linear()
    >>> layer(fg.ones((1, 3))).numpy()
    array([[3., 3.]], dtype=float32)
    >>> [w.path for w in layer.weights], layer.get_config()["units"]
    (['linear/variable'], 2)
    """

    _untracked = frozenset({"_inbound_nodes"})   # attributes that hold no sub-layers
    input_spec: Any = None   # an InputSpec (or a list of them) checked at each call
    # set through __dict__ (before __setattr__'s tracking exists), declared for type checkers
    _trainable_variables: list
    _non_trainable_variables: list
    _losses: list
    _locked: bool
    _called: bool
    _auto_config_value: Any
    # a layer with no weights that is built when made, but that Keras 3 builds on its first
    # call (its `build_config` then holds the input shape)
    _build_config_on_call = False

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        object.__setattr__(obj, "_auto_config_value", _auto_config(cls, args, kwargs))
        return obj

    def __init__(self, *, activity_regularizer: Any = None, trainable: Any = True,
                 dtype: Any = None, autocast: Any = True, name: Any = None, **kwargs: Any) -> None:
        input_dim = kwargs.pop("input_dim", None)
        input_shape = kwargs.pop("input_shape", None)
        batch_size = kwargs.pop("batch_size", None)
        kwargs.pop("batch_input_shape", None) if "batch_input_shape" in kwargs else None
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                             f"{kwargs}")
        d = self.__dict__
        d["_trainable_variables"], d["_non_trainable_variables"] = [], []
        d["_losses"], d["_locked"], d["_called"] = [], False, False
        d["_tracked_layers"] = []
        self._dtype_policy = dtype_policies.get(dtype)
        self._name = naming.auto_name(type(self).__name__) if name is None else str(name)
        self._trainable = bool(trainable)
        self.built = False
        self.autocast = autocast
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        self._input_shape_arg = (input_dim,) if input_dim is not None else \
            (tuple(input_shape) if input_shape is not None else None)
        self._batch_size_arg = batch_size
        self._inbound_nodes: list = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:   # Keras: weights are locked in once build has run
            cls.build = _locking_build(cls.__dict__["build"])

    # --- tracking ------------------------------------------------------------------------------

    def _checkpoint_children(self):
        """The edges `tf.train.Checkpoint` follows: a model's layers first, as ``layers/i`` (so
        an unbuilt model already has the paths its weights will take), then the attributes."""
        subs = list(getattr(self, "layers", None) or []) if "layers" in dir(type(self)) else []
        return ([("layers", subs)] if subs else []) + sorted(vars(self).items())


    def __setattr__(self, name, value):
        d = self.__dict__
        if "_trainable_variables" not in d and not name.startswith("_") and \
                isinstance(value, (Layer, Variable)):
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before setting "
                               f"the attribute {name!r} (a layer or variable)")
        for v in _flat(value) if isinstance(value, (list, tuple, dict, Variable)) else ():
            if isinstance(v, Variable):
                self._track_variable(v)
        # a tf.train.Checkpoint restored before the build: its keys are attribute names
        for key, v in ([(name, value)] if isinstance(value, Variable) else
                       [(f"{name}/{i}", v) for i, v in enumerate(value)]
                       if isinstance(value, (list, tuple)) else []):
            if isinstance(v, Variable):
                restore_on_creation(self, key, v)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        value = self.__dict__.get(name)
        for v in _flat(value):
            if isinstance(v, Variable):
                for store in (self._trainable_variables, self._non_trainable_variables):
                    if any(w is v for w in store):
                        store[:] = [w for w in store if w is not v]
        object.__delattr__(self, name)

    def _track_variable(self, v):
        if any(w is v for w in self._trainable_variables + self._non_trainable_variables):
            return
        (self._trainable_variables if v.trainable else self._non_trainable_variables).append(v)
        if not self.__dict__.get("_trainable", True):   # a frozen layer's weights are frozen
            v.trainable = False

    @property
    def _layers(self):
        """The direct sub-layers, in the order their attributes were set."""
        out, seen = [], {id(self)}
        for key, value in self.__dict__.items():
            if key in self._untracked:
                continue
            for v in _flat(value) if isinstance(value, (list, tuple, dict)) else [value]:
                if isinstance(v, Layer) and id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    def _flatten_layers(self, include_self=True, recursive=True):
        out, seen = ([self], {id(self)}) if include_self else ([], {id(self)})
        stack = list(reversed(self._layers))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            if recursive:
                stack.extend(reversed(layer._layers))
        return out

    # --- properties ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def path(self) -> Any:
        return self._name

    @property
    def dtype_policy(self) -> Any:
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._dtype_policy = dtype_policies.get(value)

    @property
    def dtype(self) -> Any:
        """The variable dtype (Keras 3's ``layer.dtype``), as a string."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self) -> str:
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self) -> Any:
        return self._dtype_policy.compute_dtype

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self.__dict__["_trainable"] = value
        for v in self._trainable_variables:
            v.trainable = value
        for layer in self._layers:
            layer.trainable = value

    def _unique(self, first):
        out, seen = [], set()
        for w in first:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    @property
    def weights(self) -> Any:
        """Own weights (trainable first), then each sub-layer's, each once."""
        own = self._trainable_variables + self._non_trainable_variables
        return self._unique(own + [w for layer in self._layers for w in layer.weights])

    @property
    def variables(self) -> Any:
        return self.weights

    @property
    def trainable_weights(self) -> Any:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> Any:
        return [v for v in self.weights if not v.trainable] if self.trainable else self.weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    # --- weights -------------------------------------------------------------------------------

    def add_weight(self, shape: Any = None, initializer: Any = None, dtype: Any = None,
                   trainable: Any = True, autocast: Any = True, regularizer: Any = None,
                   constraint: Any = None, aggregation: Any = "none",
                   overwrite_with_gradient: Any = False, name: Any = None) -> Any:
        """Create a weight (a `KerasVariable`) owned by this layer and return it.

        Args:
            shape: the weight's shape (``()`` when None).
            initializer: a name (``"zeros"``, ``"glorot_uniform"``...), an initializer or a
                callable ``(shape, dtype) -> value``; glorot_uniform for floating weights and
                zeros otherwise when None.
            dtype: the weight's dtype; the policy's variable dtype when None.
            trainable: whether training updates it.
            autocast: whether reads inside ``call`` are cast to the compute dtype.
            regularizer: a callable on the weight whose value joins `losses`.
            constraint: a callable applied to the weight after each optimizer update.
            aggregation: accepted as Keras does.
            overwrite_with_gradient: the optimizer writes the weight's gradient into it
                instead of an update (float8's scales and amax histories).
            name: the weight's name (its ``path`` is ``"<layer>/<name>"``).

        Raises:
            ValueError: when the layer is built and locked (Keras creates all state in
                ``__init__`` or ``build``).
        """
        if "_trainable_variables" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.add_weight: call super().__init__() "
                               f"first")
        if self._locked:
            raise ValueError("You cannot add new elements of state (variables or sub-layers) "
                             "to a layer that is already built. All state must be created in "
                             "the `__init__()` method or in the `build()` method.")
        shape = () if shape is None else tuple(int(n) for n in shape)
        dtype = self.variable_dtype if dtype is None else dtypes.as_dtype(dtype).name
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        init = initializers.get(initializer)
        name = naming.unique_name("variable") if name is None else name
        with init_scope():   # out of any trace (a functional call, a traced step)
            v = KerasVariable(init(shape, dtype=dtype), trainable=trainable, name=name,
                              dtype=dtype, path=self._variable_path(name), autocast=autocast,
                              regularizer=regularizers.get(regularizer),
                              constraint=constraints.get(constraint))
        v.overwrite_with_gradient = bool(overwrite_with_gradient)
        self._track_variable(v)
        return v

    def _variable_path(self, name):
        """Keras's path: the name scopes around the layer (a parent built it in its call)
        and the layer's own, then the weight's name."""
        scope = get_current_name_scope()
        if scope.rsplit("/", 1)[-1] != self.name:
            scope = f"{scope}/{self.name}" if scope else self.name
        return f"{scope}/{name}"

    def get_weights(self) -> Any:
        """The weights' values as NumPy arrays, in `weights` order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights: Any) -> Any:
        """Assign NumPy arrays to the weights, in `weights` order (shapes must match)."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"{type(self).__name__}.set_weights: you called `set_weights"
                             f"(weights)` on layer '{self.name}' with a weight list of length "
                             f"{len(weights)}, but the layer was expecting {len(mine)} weights.")
        for v, w in zip(mine, weights, strict=True):
            w = np.asarray(w)
            if tuple(v.shape) != w.shape:
                raise ValueError(f"{type(self).__name__}.set_weights: layer {self.name} weight "
                                 f"shape {tuple(v.shape)} is not compatible with provided "
                                 f"weight shape {w.shape}.")
            v.assign(w.astype(v.dtype._np))

    # --- the functional graph ----------------------------------------------------------------

    def _only_node(self, what):
        nodes_ = self._inbound_nodes
        if not nodes_:
            raise AttributeError(f"Layer {self.name} has never been called and thus has no "
                                 f"defined {what}.")
        if len(nodes_) > 1:
            raise AttributeError(f"Layer {self.name} has multiple inbound nodes, hence the "
                                 f"notion of \"layer {what}\" is ill-defined. Use "
                                 f"`_inbound_nodes[node_index]` instead.")
        return nodes_[0]

    @property
    def input(self) -> Any:
        """The symbolic input of the layer's one call in a functional graph."""
        node = self._only_node("input")
        inputs = node.input_tensors
        return inputs[0] if len(inputs) == 1 else inputs

    @property
    def output(self) -> Any:
        """The symbolic output of the layer's one call in a functional graph (what
        ``Model(model.input, model.get_layer(name).output)`` uses)."""
        return self._only_node("output").outputs

    # --- losses --------------------------------------------------------------------------------

    def add_loss(self, loss: Any) -> Any:
        """Add a loss (a scalar tensor) to `losses`; ``fit`` adds them to the training loss."""
        self._losses.extend(_flat(loss))

    def _own_regularization_losses(self):
        return [v.regularizer(v) for v in self._trainable_variables
                if getattr(v, "regularizer", None) is not None and v.trainable]

    @property
    def losses(self) -> Any:
        """Losses added during the last call (this layer's and its sub-layers'), then the
        weight regularizers' values."""
        layers = self._flatten_layers()
        out = [x for layer in layers for x in layer._losses]
        return out + [x for layer in layers for x in layer._own_regularization_losses()]

    def _clear_losses(self):
        for layer in self._flatten_layers():
            layer._losses.clear()

    # --- building and calling ------------------------------------------------------------------

    def build(self, input_shape: Any) -> Any:
        """Create the weights, given the input shape (a layer without weights needs none)."""
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` "
                                  f"method implemented.")

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return previous_mask if self.supports_masking else None

    def compute_output_shape(self, *args: Any, **kwargs: Any) -> Any:
        """The output shape for ``input_shape``, found by calling the layer symbolically."""
        spec = nodes.output_spec(self, *args, **kwargs)
        return nodes.map_structure(lambda t: t.shape if hasattr(t, "shape") else t, spec)

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        return nodes.output_spec(self, *args, **kwargs)

    def _convert_input(self, x):
        if isinstance(x, (np.ndarray, np.generic, float, int)) and not isinstance(x, bool):
            x = convert_to_tensor(x)
        if self.autocast and isinstance(x, Tensor) and x.dtype.is_floating and \
                x.dtype.name != self.compute_dtype and "float" in self.compute_dtype:
            x = cast(x, self.compute_dtype)
        return x

    def _maybe_build(self, args, kwargs):
        if self.built and not (self._build_config_on_call and
                               self.__dict__.get("_build_config_shapes") is None):
            return
        first = args[0] if args else next(iter(kwargs.values()), None)
        shapes = nodes.map_structure(_shape_of, first, tuple_shapes=True)
        self.__dict__["_build_config_shapes"] = shapes
        if self.built:   # built when made, yet Keras's builds (and records) on the first call
            return
        with name_scope(self.name):
            self.build(shapes)
        self.__dict__["built"] = True
        self.__dict__["_locked"] = True

    def get_build_config(self) -> Any:
        """Keras's ``{"input_shape": shape}``: what the layer was built for (by its first call
        or a direct `build`; None when it was built when made), saved so that loading builds
        it the same; ``{"shapes_dict": {...}}`` for a layer built from several shapes."""
        several = self.__dict__.get("_build_config_shapes_dict")
        if several is not None:
            return {"shapes_dict": several}
        shapes = self.__dict__.get("_build_config_shapes")
        return None if shapes is None else {"input_shape": shapes}

    def build_from_config(self, config: Any) -> None:
        """Build the layer for ``config["input_shape"]`` (`get_build_config`'s dict)."""
        several = (config or {}).get("shapes_dict")
        if several is not None and not self.built:
            self.__dict__["_build_config_shapes_dict"] = several
            with name_scope(self.name):
                self.build(**{k: _as_shape(v) for k, v in several.items()})
            self.__dict__.update(built=True, _locked=True)
            return
        shape = (config or {}).get("input_shape")
        if shape is None or self.built:
            return
        shape = _as_shape(shape)
        self.__dict__["_build_config_shapes"] = shape
        with name_scope(self.name):
            self.build(shape)
        self.__dict__["built"] = True
        self.__dict__["_locked"] = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "_trainable_variables" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: the layer's __init__ did not call "
                               f"super().__init__()")
        if nodes.is_symbolic_call(args, kwargs):
            return nodes.symbolic_call(self, args, kwargs, self._call_eagerly)
        return self._call_eagerly(args, kwargs)

    def _call_eagerly(self, args, kwargs):
        if args:   # (symbolic calls come here with the traced tensors)
            args = (nodes.map_structure(self._convert_input, args[0]),) + args[1:]
        ctx, entry = _context, _context.entry is None
        if entry:
            ctx.entry = self
            self._clear_losses()
        saved_training = ctx.training
        try:
            kwargs = self._resolve_call_args(args, kwargs, ctx)
            self._maybe_build(args, kwargs)
            if self.input_spec is not None and args:
                assert_input_compatibility(self.input_spec, args[0], self.name)
            mixed = self.autocast and self.compute_dtype != self.variable_dtype
            autocast = dtype_policies.autocast_scope(self.compute_dtype if mixed else None)
            with name_scope(self.name), autocast:
                outputs = self.call(*args, **kwargs)
            self._after_call(args, kwargs, outputs)
            self.__dict__["_called"] = True
            return outputs
        finally:
            ctx.training = saved_training
            if entry:
                ctx.entry = None

    def _resolve_call_args(self, args, kwargs, ctx):
        params = _call_params(type(self))
        position = _position(params, "training")
        if position is not None and len(args) > position:   # given positionally
            if args[position] is not None:
                ctx.training = args[position]
        elif "training" in params:
            training = kwargs.get("training")
            if training is None:
                training = ctx.training
            if training is None and params["training"].default is not inspect.Parameter.empty:
                training = params["training"].default
            if training is not None:
                ctx.training = training
            kwargs = {**kwargs, "training": training}
        elif kwargs.get("training") is not None:
            ctx.training = kwargs.pop("training")
        else:
            kwargs.pop("training", None)
        position = _position(params, "mask")
        if "mask" in params and kwargs.get("mask") is None and args and \
                (position is None or len(args) <= position):
            mask = nodes.mask_of(args[0])
            if mask is not None:
                kwargs = {**kwargs, "mask": mask}
        return kwargs

    def _after_call(self, args, kwargs, outputs):
        if isinstance(outputs, Tensor):   # what summary() shows for a subclassed model
            self.__dict__["_last_output_shape"] = tuple(outputs.shape)
        if self.activity_regularizer is not None:
            for out in _flat(outputs):
                if isinstance(out, Tensor):
                    self.add_loss(_activity_loss(self.activity_regularizer, out))
        if self.supports_masking or type(self).compute_mask is not Layer.compute_mask:
            previous = kwargs.get("mask")
            if previous is None and args:
                previous = nodes.mask_of(args[0])
            mask = self.compute_mask(args[0] if args else None, previous)
            if mask is not None:
                nodes.set_mask(outputs, mask)

    # --- configuration -------------------------------------------------------------------------

    def get_config(self) -> Any:
        """The constructor arguments that rebuild this layer (``from_config``)."""
        return self._config(automatic=type(self).get_config is Layer.get_config)

    def _config(self, automatic: bool) -> Any:
        """`get_config`'s dict; ``automatic``: ``get_config`` is not overridden, so the
        arguments ``__init__`` received are the config (as Keras's automatic config)."""
        config: dict[str, Any] = {"name": self.name}
        if automatic:
            auto = self._auto_config_value
            if auto is None:
                raise NotImplementedError(
                    f"Object {type(self).__name__} was created by passing non-serializable "
                    f"argument values in `__init__()`, and therefore the object must override "
                    f"`get_config()` in order to be serializable. Please implement "
                    f"`get_config()`.")
            spec = inspect.getfullargspec(type(self).__init__)
            if spec.varkw != "kwargs" and "name" not in spec.args[1:]:
                config.pop("name")
            config.update(auto)
        config.update(trainable=self.trainable,
                      dtype=dtype_policies.serialize(self.dtype_policy))
        if self.activity_regularizer is not None and hasattr(self.activity_regularizer,
                                                             "get_config"):
            config["activity_regularizer"] = _serialize_object(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: Any) -> Any:
        """A new layer from `get_config`'s dictionary."""
        config = dict(config)
        dtype = config.get("dtype")
        if isinstance(dtype, dict) and dtype.get("class_name") != "AWQDTypePolicy":
            # (AWQ: the layer raises NotImplementedError)
            config["dtype"] = dtype_policies.get(dtype)
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using "
                            f"config={config}.\n\nException encountered: {e}") from e

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _as_shape(value):
    """A JSON shape (lists, ints, None) as the tuples `build` receives."""
    if isinstance(value, (list, tuple)):
        return tuple(_as_shape(v) for v in value)
    return value


def _serialize_object(obj):
    return {"module": type(obj).__module__, "class_name": type(obj).__name__,
            "config": obj.get_config(), "registered_name": None}


def _shape_of(x):
    if isinstance(x, (Tensor, Variable)) or hasattr(x, "shape"):
        return tuple(TensorShape(x.shape).as_list())
    return x


_params_cache: dict[type, dict] = {}


def _position(params, name):
    """The positional index of ``call``'s parameter ``name`` (self not counted), or None."""
    names = [n for n, p in params.items() if n != "self" and
             p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names.index(name) if name in names else None


def _call_params(cls):
    params = _params_cache.get(cls)
    if params is None:
        params = _params_cache[cls] = dict(inspect.signature(cls.call).parameters)
    return params


def _locking_build(build):
    # the outermost build locks the state: a subclass's build may call super().build() and
    # then add weights of its own, as in Keras
    def locked_build(self, *args: Any, **kwargs: Any) -> None:
        d = self.__dict__
        depth = d.get("_build_depth", 0)
        d["_build_depth"] = depth + 1
        try:
            build(self, *args, **kwargs)
        finally:
            d["_build_depth"] = depth
        if depth == 0 and len(args) == 1 and not kwargs:   # what Keras's build_config holds
            d["_build_config_shapes"] = args[0]
        if depth == 0:
            d["built"] = True
            d["_locked"] = True
    locked_build.__wrapped__ = build
    locked_build.__doc__ = build.__doc__
    return locked_build


def _activity_loss(regularizer, out):
    """The activity regularizer's value over the batch size (Keras 3 divides by it, so the
    strength does not change with the batch)."""
    loss = regularizer(out)
    if len(out.shape) > 0:
        loss = loss / cast(shape(out)[0], loss.dtype)
    return loss
