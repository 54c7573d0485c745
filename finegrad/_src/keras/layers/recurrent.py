"""Keras's recurrent layers: the `RNN` loop over a cell, the cells `SimpleRNNCell`,
`LSTMCell`, `GRUCell`, and the layers `SimpleRNN`, `LSTM`, `GRU`.

The loop runs the cell over the time axis (1) in Python, each step recorded like any other
ops, so gradients flow back through time by the tape. Keras's conventions hold: kernels are
[input_dim, k * units] and recurrent kernels [units, k * units] with the gates side by side,
LSTM's in the order (input, forget, cell, output) and GRU's (update z, reset r, candidate h);
GRU's default ``reset_after=True`` has a [2, 3 * units] bias (input bias, recurrent bias) and
applies the reset gate after the recurrent product. A masked step keeps the previous state and
repeats the previous output (zeros with ``zero_output_for_mask``). ``dropout`` and
``recurrent_dropout`` draw one mask per call, used at every step in training.
"""

from __future__ import annotations

import inspect

from finegrad._src import core, nest
from finegrad._src.keras import activations, initializers, nodes, regularizers
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.core import (make_weight, serialized, weight_config,
                                             weight_options)
from finegrad._src.ops.math import elementwise as ew
from finegrad._src.ops.linalg import products as linalg
from finegrad._src.ops.array.structural import (cast, concat, expand_dims, ones_like, split,
                                                stack, unstack)
from finegrad._src.ops.array.structural import zeros_like
from finegrad._src.ops.array.constants import ones, zeros
from finegrad._src.keras.layers.serialization import deserialize_layer, serialize_layer
from finegrad._src.ops.nn.dropout import dropout
from finegrad._src.variables import Variable

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: nothing imported at run time
    from finegrad._src.types import TensorLike


class _DropoutCell(Layer):
    """A cell's shared parts: units, activations, the three weights' options, dropout."""

    def __init__(self, units, activation, use_bias, kernel_initializer, recurrent_initializer,
                 bias_initializer, kernel_regularizer, recurrent_regularizer,
                 bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint,
                 dropout, recurrent_dropout, seed, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"keras.layers.{type(self).__name__}: units must be a positive "
                             f"int, got {units!r}")
        self.units, self.use_bias, self.seed = units, use_bias, seed
        self.activation = activations.get(activation)
        weight_options(self, "kernel", kernel_initializer, kernel_regularizer,
                       kernel_constraint)
        weight_options(self, "recurrent", recurrent_initializer, recurrent_regularizer,
                       recurrent_constraint)
        weight_options(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._dropout_masks = None

    def _make_weights(self, input_dim, gates, bias_shape=None, bias_initializer=None):
        self.kernel = make_weight(self, "kernel", (input_dim, gates * self.units))
        self.recurrent_kernel = make_weight(self, "recurrent",
                                            (self.units, gates * self.units),
                                            name="recurrent_kernel")
        if not self.use_bias:
            self.bias = None
            return
        self.bias = self.add_weight(name="bias", shape=bias_shape or (gates * self.units,),
                                    initializer=bias_initializer or self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint)

    def set_dropout_masks(self, step_input, state):
        """Draw this call's masks for the inputs and the recurrent state."""
        dp = dropout(ones_like(step_input), self.dropout, seed=self.seed) \
            if 0 < self.dropout < 1 else None
        rdp = dropout(ones_like(state), self.recurrent_dropout, seed=self.seed) \
            if 0 < self.recurrent_dropout < 1 else None
        self._dropout_masks = (dp, rdp)

    def reset_dropout_masks(self):
        self._dropout_masks = None

    def _dropped(self, inputs, h_tm1, training):
        if not training:
            return inputs, h_tm1
        if self._dropout_masks is None:
            self.set_dropout_masks(inputs, h_tm1)
            dp, rdp = self._dropout_masks
            self._dropout_masks = None
        else:
            dp, rdp = self._dropout_masks
        return (inputs if dp is None else inputs * dp), (h_tm1 if rdp is None else h_tm1 * rdp)

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) \
            else [self.state_size]
        return [zeros((batch_size, d), dtype=self.compute_dtype) for d in sizes]

    def _cell_config(self):
        config = dict(units=self.units, activation=activations.serialize(self.activation),
                      use_bias=self.use_bias)
        return config


def _first(states):
    return states[0] if isinstance(states, (list, tuple)) else states


class SimpleRNNCell(_DropoutCell):
    """One step of a fully connected RNN: ``h = activation(x @ kernel + bias + h_prev @
    recurrent_kernel)``; the output is ``h``.

    >>> import finegrad as fg
    >>> cell = fg.keras.layers.SimpleRNNCell(3)
    >>> out, [h] = cell(fg.ones([2, 4]), [fg.zeros([2, 3])])
    >>> out.shape
    TensorShape([2, 3])
    """

    def __init__(self, units: Any, activation: str = "tanh", use_bias: bool = True,
                 kernel_initializer: str = "glorot_uniform",
                 recurrent_initializer: str = "orthogonal", bias_initializer: str = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, seed: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         seed, **kwargs)
        self.state_size = self.output_size = units

    def build(self, input_shape: Any) -> None:
        self._make_weights(input_shape[-1], 1)
        self.built = True

    def call(self, sequence: Any, states: Any, training: bool = False) -> Any:
        x, prev = self._dropped(sequence, _first(states), training)
        h = linalg.matmul(x, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        out = h + linalg.matmul(prev, self.recurrent_kernel)
        if self.activation is not None:
            out = self.activation(out)
        return out, ([out] if isinstance(states, (list, tuple)) else out)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(self._cell_config(), **_cell_weights_config(self),
                      dropout=self.dropout, recurrent_dropout=self.recurrent_dropout,
                      seed=self.seed)
        return config


def _cell_weights_config(cell):
    """Keras's names: kernel_*, recurrent_* (the recurrent kernel's) and bias_*."""
    return weight_config(cell, "kernel", "recurrent", "bias")   # (no activity_regularizer)


class LSTMCell(_DropoutCell):
    """One step of a long short-term memory cell, gates in Keras's order (i, f, c, o):
    ``c = f * c_prev + i * activation(z_c)``, ``h = o * activation(c)``, with i, f, o the
    ``recurrent_activation`` of their parts of ``x @ kernel + h_prev @ recurrent_kernel +
    bias``. ``unit_forget_bias`` starts the forget gate's bias at 1.

    >>> import finegrad as fg
    >>> cell = fg.keras.layers.LSTMCell(3)
    >>> out, [h, c] = cell(fg.ones([2, 4]), [fg.zeros([2, 3]), fg.zeros([2, 3])])
    >>> c.shape
    TensorShape([2, 3])
    """

    bias_initializer: Any   # for the type checker: set by weight_options

    def __init__(self, units: Any, activation: str = "tanh", recurrent_activation: str = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str = "glorot_uniform",
                 recurrent_initializer: str = "orthogonal", bias_initializer: str = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Any = None, **kwargs: Any) -> None:
        kwargs.pop("implementation", None)
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]
        self.output_size = units

    def build(self, input_shape: Any) -> None:
        init = None
        if self.use_bias and self.unit_forget_bias:
            base, ones = self.bias_initializer, initializers.get("ones")

            def init(shape, dtype=None):
                parts = [base((self.units,), dtype=dtype), ones((self.units,), dtype=dtype),
                         base((2 * self.units,), dtype=dtype)]
                return concat([cast(p, dtype or "float32") for p in parts], 0)
        self._make_weights(input_shape[-1], 4, bias_initializer=init)
        self.built = True

    def call(self, inputs: TensorLike, states: Any, training: bool = False) -> Any:
        h_tm1, c_tm1 = states[0], states[1]
        x, h_tm1 = self._dropped(inputs, h_tm1, training)
        z = linalg.matmul(x, self.kernel) + linalg.matmul(h_tm1, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        z0, z1, z2, z3 = split(z, 4, axis=-1)
        i = self.recurrent_activation(z0)
        f = self.recurrent_activation(z1)
        c = f * c_tm1 + i * self.activation(z2)
        o = self.recurrent_activation(z3)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(self._cell_config(),
                      recurrent_activation=activations.serialize(self.recurrent_activation),
                      unit_forget_bias=self.unit_forget_bias, **_cell_weights_config(self),
                      dropout=self.dropout, recurrent_dropout=self.recurrent_dropout,
                      seed=self.seed)
        return config


class GRUCell(_DropoutCell):
    """One step of a gated recurrent unit, gates in Keras's order (z, r, h):
    ``h = z * h_prev + (1 - z) * activation(x_h + r * (h_prev @ U_h + b_h))`` with
    ``reset_after=True`` (the default, cuDNN's variant), or ``activation(x_h + (r * h_prev) @
    U_h)`` with ``reset_after=False``.

    >>> import finegrad as fg
    >>> cell = fg.keras.layers.GRUCell(3)
    >>> cell.build((2, 4)); cell.bias.shape
    TensorShape([2, 9])
    """

    def __init__(self, units: Any, activation: str = "tanh", recurrent_activation: str = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str = "glorot_uniform",
                 recurrent_initializer: str = "orthogonal", bias_initializer: str = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, reset_after: bool = True,
                 seed: Any = None, **kwargs: Any) -> None:
        kwargs.pop("implementation", None)
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after
        self.state_size = self.output_size = units

    def build(self, input_shape: Any) -> None:
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._make_weights(input_shape[-1], 3, bias_shape=shape)
        self.built = True

    def call(self, inputs: TensorLike, states: Any, training: bool = False) -> Any:
        h_prev = _first(states)
        x, h_tm1 = self._dropped(inputs, h_prev, training)
        u = self.units
        in_bias = rec_bias = None
        if self.bias is not None:
            in_bias, rec_bias = (self.bias[0], self.bias[1]) if self.reset_after \
                else (self.bias, None)
        mx = linalg.matmul(x, self.kernel)
        if in_bias is not None:
            mx = mx + in_bias
        x_z, x_r, x_h = split(mx, 3, axis=-1)
        if self.reset_after:
            inner = linalg.matmul(h_tm1, self.recurrent_kernel)
            if rec_bias is not None:
                inner = inner + rec_bias
        else:
            inner = linalg.matmul(h_tm1, self.recurrent_kernel[:, :2 * u])
        z = self.recurrent_activation(x_z + inner[:, :u])
        r = self.recurrent_activation(x_r + inner[:, u:2 * u])
        if self.reset_after:
            rec_h = r * inner[:, 2 * u:]
        else:
            rec_h = linalg.matmul(r * h_tm1, self.recurrent_kernel[:, 2 * u:])
        hh = self.activation(x_h + rec_h)
        h = z * h_prev + (1 - z) * hh
        return h, ([h] if isinstance(states, (list, tuple)) else h)

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(self._cell_config(),
                      recurrent_activation=activations.serialize(self.recurrent_activation),
                      **_cell_weights_config(self), dropout=self.dropout,
                      recurrent_dropout=self.recurrent_dropout, reset_after=self.reset_after,
                      seed=self.seed)
        return config


def _call_cell(cell, x, states, training):
    if "training" in _call_params(cell):
        return cell(x, states, training=training)
    return cell(x, states)


def _call_params(cell):
    return inspect.signature(cell.call).parameters


def _select(mask, new, old):
    """``new`` where the step's mask ([batch]) is true, else ``old``."""
    m = expand_dims(mask, -1)
    return ew.where(m, new, old)


def _loop(cell, sequences, states, mask, training, go_backwards, zero_output_for_mask):
    """Run ``cell`` over axis 1; returns (last output, outputs [batch, time, ...],
    final states)."""
    steps = unstack(sequences, axis=1)
    masks = unstack(cast(mask, "bool"), axis=1) if mask is not None else None
    if go_backwards:
        steps = steps[::-1]
        masks = masks[::-1] if masks is not None else None
    outputs, prev = [], None
    for t, x in enumerate(steps):
        out, new_states = _call_cell(cell, x, states, training)
        new_states = list(new_states) if isinstance(new_states, (list, tuple)) \
            else [new_states]
        if masks is not None:
            if prev is None:
                prev = zeros_like(out)
            base = zeros_like(out) if zero_output_for_mask else prev
            out = _select(masks[t], out, base)
            kept = [_select(masks[t], n, o) for n, o in
                    zip(nest.flatten(new_states), nest.flatten(states), strict=True)]
            new_states = nest.pack_sequence_as(new_states, kept)
        outputs.append(out)
        prev, states = out, new_states
    return outputs[-1], stack(outputs, axis=1), states


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    if size is None:
        size = cell.state_size[0] if isinstance(cell.state_size, (list, tuple)) \
            else cell.state_size
    return size


class StackedRNNCells(Layer):
    """Cells run one after the other at each step, each one's output the next one's input;
    the states are one entry per cell (a cell's list of states, or its single state).

    >>> import finegrad as fg
    >>> cells = [fg.keras.layers.LSTMCell(4), fg.keras.layers.GRUCell(3)]
    >>> fg.keras.layers.RNN(cells)(fg.ones([2, 5, 6])).shape
    TensorShape([2, 3])
    """

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cells = [deserialize_layer(c) if isinstance(c, dict) else c for c in cells]
        for cell in cells:
            if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
                raise ValueError(f"keras.layers.StackedRNNCells: every cell needs a `call` "
                                 f"method and a `state_size`, got {cell!r}")
        self.cells = cells

    @property
    def state_size(self) -> Any:
        return [c.state_size for c in self.cells]

    @property
    def output_size(self) -> Any:
        return _output_size(self.cells[-1])

    def build(self, input_shape: Any) -> None:
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(shape)
                cell.built = True
            shape = (shape[0], _output_size(cell))
        self.built = True

    def call(self, inputs: TensorLike, states: Any, training: bool = False) -> Any:
        new_states = []
        for cell, cell_states in zip(self.cells, states, strict=True):
            nested = isinstance(cell_states, (list, tuple))
            inputs, out_states = _call_cell(cell, inputs, list(cell_states) if nested
                                            else [cell_states], training)
            out_states = list(out_states) if isinstance(out_states, (list, tuple)) \
                else [out_states]
            new_states.append(out_states if nested or len(out_states) > 1 else out_states[0])
        return inputs, new_states

    def set_dropout_masks(self, step_input: Any, states: Any) -> None:
        """Each dropout cell's masks for this call (inputs shaped like the cell's input)."""
        x = step_input
        for cell, cell_states in zip(self.cells, states, strict=True):
            first = nest.flatten(cell_states)[0]
            if isinstance(cell, _DropoutCell):
                cell.set_dropout_masks(x, first)
            x = zeros_like(first[:, :1]) + ones((_output_size(cell),), dtype=first.dtype)

    def reset_dropout_masks(self) -> None:
        for cell in self.cells:
            if isinstance(cell, _DropoutCell):
                cell.reset_dropout_masks()

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(cells=[serialize_layer(c) for c in self.cells])
        return config


def open_time(outputs, sequences):
    """In the functional API's shape-inference trace (the only place a time axis is unknown:
    the loop ran over the example's steps), outputs whose time axis is the input's, unknown
    as Keras's; the model recomputes the layer on real tensors."""
    if core.current_tracer() is not nodes.functional_builder():
        raise NotImplementedError("keras.layers: a sequence of unknown length is only "
                                  "supported in the functional API's symbolic call")
    column = sequences[(slice(None), slice(None)) + (0,) * (len(sequences.shape) - 2)]
    column = cast(zeros_like(column), outputs.dtype)            # [batch, time]
    for _ in range(len(outputs.shape) - 2):
        column = expand_dims(column, -1)
    return expand_dims(outputs[:, 0], 1) + column


class RNN(Layer):
    """Runs a recurrent ``cell`` (a layer with ``call(inputs, states)`` returning
    ``(output, new_states)`` and a ``state_size``) over the time axis of a [batch, time,
    features] input.

    Args:
        cell: the cell.
        return_sequences: return every step's output (else the last).
        return_state: also return the final states (``[output, *states]``).
        go_backwards: run over the reversed sequence (the outputs come in that order).
        stateful: keep the final states (non-trainable variables, one row per example of a
            fixed batch size) as the next call's initial states; ``reset_state()`` zeroes
            them.
        unroll: accepted (the loop always runs step by step in Python).
        zero_output_for_mask: a masked step outputs zeros instead of repeating the last one.

    >>> import finegrad as fg
    >>> rnn = fg.keras.layers.RNN(fg.keras.layers.SimpleRNNCell(3), return_sequences=True)
    >>> rnn(fg.ones([2, 5, 4])).shape
    TensorShape([2, 5, 3])
    """

    states: Any   # for the type checker: set in __dict__ (untracked) by __init__ and build

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        if isinstance(cell, dict):
            cell = deserialize_layer(cell)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(f"keras.layers.RNN: cell must have a `call` method and a "
                             f"`state_size` attribute, got {cell!r}")
        super().__init__(**kwargs)
        self.__dict__["states"] = None     # a stateful layer's state variables (untracked)
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        sizes = cell.state_size
        self.state_size = list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build((sequences_shape[0],) + tuple(sequences_shape[2:]))
            self.cell.built = True
        if self.stateful:
            if sequences_shape[0] is None:
                raise ValueError(f"keras.layers.{type(self).__name__}: a stateful RNN needs a "
                                 f"static batch size, got input shape {tuple(sequences_shape)}")
            self.__dict__["states"] = [
                Variable(s, trainable=False, name="rnn_state")
                for s in self.get_initial_state(int(sequences_shape[0]))]
        self.built = True

    def reset_state(self) -> None:
        """Zero a stateful layer's states."""
        for v in self.states or ():
            v.assign(zeros_like(v))

    def reset_states(self) -> None:
        self.reset_state()

    def get_initial_state(self, batch_size: Any) -> Any:
        if hasattr(self.cell, "get_initial_state"):
            return list(self.cell.get_initial_state(batch_size=batch_size))
        return [zeros((batch_size, d), dtype=self.compute_dtype) for d in self.state_size]

    def _zero_states(self, sequences):
        """Zero states of the sequences' batch size (which may be unknown in a trace)."""
        batch = sequences.shape[0]
        if batch is not None and (hasattr(self.cell, "get_initial_state") and
                                  not isinstance(self.cell, (_DropoutCell, StackedRNNCells))):
            return self.get_initial_state(int(batch))
        column = cast(zeros_like(sequences[:, 0, :1]), self.cell.compute_dtype)

        def zero(size):
            if isinstance(size, (list, tuple)):
                return [zero(s) for s in size]
            return column + zeros((size,), dtype=self.cell.compute_dtype)
        if isinstance(self.cell, StackedRNNCells):   # each cell's states as a list (Keras's)
            return [zero(d if isinstance(d, (list, tuple)) else [d]) for d in self.state_size]
        return [zero(d) for d in self.state_size]

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Any = False) -> Any:
        if initial_state is None and self.stateful:
            states = [v.read_value() for v in self.states]
        elif initial_state is None:
            states = self._zero_states(sequences)
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) \
                else [initial_state]
            states = [cast(s, self.cell.compute_dtype) for s in states]
        if isinstance(self.cell, _DropoutCell):
            self.cell.set_dropout_masks(sequences[:, 0], states[0])
        elif isinstance(self.cell, StackedRNNCells):
            self.cell.set_dropout_masks(sequences[:, 0], states)
        try:
            last, outputs, states = _loop(self.cell, sequences, states, mask, training,
                                          self.go_backwards, self.zero_output_for_mask)
        finally:
            if isinstance(self.cell, (_DropoutCell, StackedRNNCells)):
                self.cell.reset_dropout_masks()
        if self.stateful:
            for v, s in zip(self.states, states, strict=True):
                v.assign(s)
        if self.return_sequences and sequences.shape[1] is None:
            outputs = open_time(outputs, sequences)
        output = outputs if self.return_sequences else last
        return (output, *states) if self.return_state else output

    def compute_mask(self, inputs: TensorLike, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self.state_size) if self.return_state else out

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        batch, length = sequences_shape[0], sequences_shape[1]
        size = _output_size(self.cell)
        out = (batch, length, size) if self.return_sequences else (batch, size)
        if self.return_state:
            return [out] + [[(batch, e) for e in d] if isinstance(d, (list, tuple))
                            else (batch, d) for d in self.state_size]
        return out

    def get_config(self) -> Any:
        config = super().get_config()
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful,
                      unroll=self.unroll, zero_output_for_mask=self.zero_output_for_mask,
                      cell=serialize_layer(self.cell))
        return config


_CELL_ATTRS = ("units", "activation", "recurrent_activation", "use_bias", "dropout",
               "recurrent_dropout", "unit_forget_bias", "reset_after", "kernel_initializer",
               "recurrent_initializer", "bias_initializer", "kernel_regularizer",
               "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
               "recurrent_constraint", "bias_constraint", "seed")
_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")


class _CellRNN(RNN):
    """An RNN layer built around its own cell, the cell's options taken by its
    constructor."""

    _cell_class: type = _DropoutCell     # the subclass names its cell class

    def __init__(self, **kwargs):
        use_cudnn = kwargs.pop("use_cudnn", "auto")     # accepted: there is no cuDNN path
        rnn_kwargs = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        layer_kwargs = {k: kwargs.pop(k) for k in ("name", "dtype", "trainable",
                                                  "activity_regularizer", "input_shape",
                                                  "input_dim", "batch_size") if k in kwargs}
        cell = self._cell_class(dtype=layer_kwargs.get("dtype"),
                                trainable=layer_kwargs.get("trainable", True), **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)
        self.use_cudnn = use_cudnn

    def __getattr__(self, name):
        if name in _CELL_ATTRS and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_config(self):
        config = super().get_config()
        config.pop("cell")
        cell = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell.pop(key, None)
        config.update(cell)
        config.update(activity_regularizer=serialized(regularizers, self.activity_regularizer))
        return config


class SimpleRNN(_CellRNN):
    """A fully connected RNN whose output is fed back: `SimpleRNNCell` run over the time
    axis. Takes the cell's arguments (units, activation="tanh", ...) and `RNN`'s
    (return_sequences, return_state, go_backwards, ...).

    >>> import finegrad as fg
    >>> fg.keras.layers.SimpleRNN(3)(fg.ones([2, 5, 4])).shape
    TensorShape([2, 3])
    """

    _cell_class = SimpleRNNCell

    def __init__(self, units: Any, activation: str = "tanh", use_bias: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(units=units, activation=activation, use_bias=use_bias, **kwargs)

    def get_config(self) -> Any:
        config = super().get_config()
        config.pop("seed", None)    # (Keras 3's SimpleRNN config leaves its seed out)
        return config


class LSTM(_CellRNN):
    """Long short-term memory: `LSTMCell` run over the time axis. With
    ``return_state=True`` it returns ``[output, h, c]``.

    >>> import finegrad as fg
    >>> out, h, c = fg.keras.layers.LSTM(3, return_state=True)(fg.ones([2, 5, 4]))
    >>> out.shape, c.shape
    (TensorShape([2, 3]), TensorShape([2, 3]))
    """

    _cell_class = LSTMCell

    def __init__(self, units: Any, activation: str = "tanh", recurrent_activation: str = "sigmoid",
                 use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(units=units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias,
                         **kwargs)


class GRU(_CellRNN):
    """Gated recurrent unit: `GRUCell` run over the time axis (``reset_after=True`` by
    default, Keras's and cuDNN's variant).

    >>> import finegrad as fg
    >>> fg.keras.layers.GRU(3, return_sequences=True)(fg.ones([2, 5, 4])).shape
    TensorShape([2, 5, 3])
    """

    _cell_class = GRUCell

    def __init__(self, units: Any, activation: str = "tanh", recurrent_activation: str = "sigmoid",
                 use_bias: bool = True, reset_after: bool = True, **kwargs: Any) -> None:
        super().__init__(units=units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias,
                         reset_after=reset_after, **kwargs)
