"""``Model.summary()``: the table Keras 3 prints (its box characters, column widths, wrapping
and totals), drawn here without the ``rich`` package Keras uses.

Column widths follow Keras: fractions of the line length (76 on a pipe, the terminal width
less 4 up to 88 or 108 otherwise), each cell padded by one space on both sides, and the
columns then narrowed evenly until the table fits the line, as ``rich`` narrows them.
"""
import inspect
import re
import shutil

import numpy as np

from finegrad._src.keras.input_layer import InputLayer
from finegrad._src.keras.nodes import KerasTensor


def _ratio_reduce(total, widths):
    """Take ``total`` characters off ``widths``, as evenly as rounding allows."""
    out, left, n = [], total, len(widths)
    for w in widths:
        cut = min(w, round(left / n))
        out.append(w - cut)
        left -= cut
        n -= 1
    return out


def _wrap(text, width, ellipsis=False):
    """Lines of ``text`` at most ``width`` long, broken at spaces (long words folded, or cut
    with an ellipsis)."""
    lines = []
    for para in str(text).split("\n"):
        line = ""
        indent = len(para) - len(para.lstrip(" "))   # kept on the first word, as rich does
        words = para[indent:].split(" ")
        words[0] = " " * indent + words[0]
        for word in words:
            candidate = word if not line else f"{line} {word}"
            if len(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
        lines.append(line)
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        elif ellipsis:
            out.append(line[:width - 1] + "…")
        else:
            out += [line[i:i + width] for i in range(0, len(line), width)]
    return out


def _shape_text(shape):
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text(s) for s in shape) + "]"
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _output_shape(layer, model):
    nodes = [n for n in layer._inbound_nodes if n.output_tensors]
    if isinstance(layer, InputLayer):
        return _shape_text(layer.batch_shape)
    if nodes:
        shapes = [t.shape for t in nodes[0].output_tensors]
        return _shape_text(shapes[0] if len(shapes) == 1 else shapes)
    shape = getattr(layer, "_last_output_shape", None)
    return "?" if shape is None else _shape_text(shape)


def _params(layer):
    if not layer.built:
        return "0 (unbuilt)"
    return f"{_count(layer.weights):,}"


def _count(weights):
    return int(sum(int(np.prod(w.shape)) for w in weights))


def _memory(weights):
    size = float(sum(int(np.prod(w.shape)) * w.dtype.size for w in weights))
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _connections(layer, model):
    if isinstance(layer, InputLayer):
        return "-"
    out = []
    for node in layer._inbound_nodes:
        if node not in model._graph_nodes:
            continue
        for t in node.input_tensors:
            if isinstance(t, KerasTensor) and t._keras_history is not None:
                src, i = t._keras_history
                out.append(f"{src.layer.name}[{src.layer._inbound_nodes.index(src)}][{i}]")
    return ", ".join(out) or "-"


def _sequential_like(model):
    if model._graph_nodes is None or type(model).__name__ == "Sequential":
        return True
    for node in model._graph_nodes:
        if len(node.input_tensors) > 1 or len(node.layer._inbound_nodes) > 1:
            return False
    return len(model.inputs) == 1 and len(model.outputs) == 1


def _row_cells(layer, model, sequential_like, show_trainable, prefix=""):
    cells = [f"{prefix}{layer.name} ({type(layer).__name__})", _output_shape(layer, model),
             _params(layer)]
    if not sequential_like:
        cells.append(_connections(layer, model))
    if show_trainable:
        cells.append("-" if not layer.weights else ("Y" if layer.trainable else "N"))
    return cells


def _line(left, mid, right, fill, widths):
    return left + mid.join(fill * w for w in widths) + right


def _table_lines(headers, aligns, rows, widths):
    def render(cells, sep, ellipsis_col):
        wrapped = [_wrap(c, w - 2, ellipsis=ellipsis_col in (i, "all"))
                   for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        height = max(len(w) for w in wrapped)
        out = []
        for k in range(height):
            parts = []
            for lines, w, a in zip(wrapped, widths, aligns, strict=True):
                text = lines[k] if k < len(lines) else ""
                parts.append(" " + (text.rjust(w - 2) if a == "right" else
                                    text.center(w - 2) if a == "center" else
                                    text.ljust(w - 2)) + " ")
            out.append(sep + sep.join(parts) + sep)
        return out
    conn = headers.index("Connected to") if "Connected to" in headers else -1
    lines = [_line("┏", "┳", "┓", "━", widths)] + render(headers, "┃", "all")
    lines.append(_line("┡", "╇", "┩", "━", widths))
    for i, row in enumerate(rows):
        if i:
            lines.append(_line("├", "┼", "┤", "─", widths))
        lines += render(row, "│", conn)
    lines.append(_line("└", "┴", "┘", "─", widths))
    return lines


def _rows(layer, model, sequential_like, show_trainable, expand_nested, level=0):
    """The row of ``layer`` and, with ``expand_nested``, those of the layers of a nested
    model below it (prefixed ``"   " * level + "└ "``, as Keras 3)."""
    prefix = "   " * level + "└ " if level else ""
    rows = [_row_cells(layer, model, sequential_like, show_trainable, prefix)]
    inner = getattr(layer, "layers", None) if expand_nested else None
    for sub in inner or ():
        rows += _rows(sub, model, sequential_like, show_trainable, expand_nested, level + 1)
    return rows


def _layer_range(layers, layer_range):
    """[first, last + 1] of the layers whose names match ``layer_range``'s two patterns."""
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(f"layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range = {layer_range} of length {len(layer_range)}")
    if not all(isinstance(p, str) for p in layer_range):
        raise ValueError(f"layer_range should contain string type only. Received: "
                         f"{layer_range}")
    low = [i for i, la in enumerate(layers) if re.match(layer_range[0], la.name)]
    high = [i for i, la in enumerate(layers) if re.match(layer_range[1], la.name)]
    if not low or not high:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. "
                         f"Received: {layer_range}")
    if min(low) > max(high):
        return min(high), max(low) + 1
    return min(low), max(high) + 1


def summary_text(model, line_length=None, positions=None, show_trainable=False,
                 expand_nested=False, layer_range=None):
    """The summary of ``model`` as Keras 3 prints it, one string."""
    sequential_like = _sequential_like(model)
    if sequential_like:
        default, headers, aligns = 88, ["Layer (type)", "Output Shape", "Param #"], \
            ["left", "left", "right"]
        positions = positions or [0.45, 0.80, 1.0]
    else:
        default = 108
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        aligns = ["left", "left", "right", "left"]
        positions = positions or [0.3, 0.56, 0.74, 1.0]
    if show_trainable:
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        headers, aligns = headers + ["Trainable"], aligns + ["center"]
    default = min(default, shutil.get_terminal_size().columns - 4)
    line_length = line_length or default
    widths, current = [], 0
    for pos in positions:
        widths.append(int(pos * line_length) - current + 2)
        current += widths[-1] - 2
    excess = sum(widths) - (line_length - len(widths) - 1)
    if excess > 0:
        widths = _ratio_reduce(excess, widths)
    layers = model.layers
    first, last = _layer_range(layers, layer_range)
    rows = [row for layer in layers[first:last]
            for row in _rows(layer, model, sequential_like, show_trainable, expand_nested)]
    lines = [f'Model: "{model.name}"'] + _table_lines(headers, aligns, rows, widths)
    return "\n".join(lines + _totals(model)) + "\n"


def _totals(model):
    trainable, frozen = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    opt_vars = list(getattr(optimizer, "variables", None) or []) \
        if getattr(optimizer, "built", False) else []
    lines = [f" Total params: {_count(trainable + frozen + opt_vars):,} "
             f"({_memory(trainable + frozen + opt_vars)})",
             f" Trainable params: {_count(trainable):,} ({_memory(trainable)})",
             f" Non-trainable params: {_count(frozen):,} ({_memory(frozen)})"]
    if opt_vars:
        lines.append(f" Optimizer params: {_count(opt_vars):,} ({_memory(opt_vars)})")
    return lines


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False, layer_range=None):
    text = summary_text(model, line_length=line_length, positions=positions,
                        show_trainable=show_trainable, expand_nested=expand_nested,
                        layer_range=layer_range)
    if print_fn is None:
        print(text, end="")
        return
    try:
        takes_line_break = "line_break" in inspect.signature(print_fn).parameters
    except (TypeError, ValueError):
        takes_line_break = False
    print_fn(text, line_break=False) if takes_line_break else print_fn(text)
