"""``tf.train.Example`` and its parts (``Features``, ``Feature``, ``BytesList``,
``FloatList``, ``Int64List``; tensorflow/core/example/{example,feature}.proto) as small
Python classes with protobuf's interface: keyword construction, field access,
``SerializeToString``, ``FromString``/``ParseFromString``, equality and the text format.
Encoded with `tf_protos`' wire format, so TensorFlow reads ours and we read TensorFlow's.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from finegrad._src.data.tf_protos import (ProtoError, _bytes_field, _signed, _varint, _varints,
                                          parse)


class _Message:
    """What the message classes share: parsing, equality and the text format."""

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        """The message's protocol-buffer bytes."""
        raise NotImplementedError

    def _parse(self, buf: bytes) -> None:
        raise NotImplementedError

    def _text(self, indent: str) -> str:
        raise NotImplementedError

    @classmethod
    def FromString(cls, serialized: bytes) -> Any:
        """The message that ``serialized`` encodes.

        Raises:
            finegrad._src.data.tf_protos.ProtoError: (a ValueError) for bytes that are not
                one.
        """
        out = cls()
        out.ParseFromString(serialized)
        return out

    def ParseFromString(self, serialized: bytes) -> int:
        """Replaces the fields with those ``serialized`` encodes; returns its length."""
        self.__init__()  # type: ignore[misc]
        self._parse(bytes(serialized))
        return len(serialized)

    def CopyFrom(self, other: Any) -> None:
        """Replaces the fields with a copy of ``other``'s."""
        self.ParseFromString(other.SerializeToString())

    def ByteSize(self) -> int:
        return len(self.SerializeToString())

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def _key(self) -> Any:
        raise NotImplementedError

    def __str__(self) -> str:
        return self._text("")

    def __repr__(self) -> str:
        return self._text("")


class _Values(list):
    """A repeated field: a list that converts what is added, and tells its owner (a
    `Feature` whose oneof is not yet set) that it changed."""

    def __init__(self, items: Any, convert: Any) -> None:
        super().__init__(convert(v) for v in items)
        self._convert = convert
        self.on_change: Any = None

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
            self.on_change = None

    def append(self, v: Any) -> None:
        super().append(self._convert(v))
        self._changed()

    def extend(self, items: Any) -> None:
        super().extend(self._convert(v) for v in items)
        self._changed()

    def insert(self, i: Any, v: Any) -> None:
        super().insert(i, self._convert(v))
        self._changed()

    def __iadd__(self, items: Any) -> Any:  # type: ignore[misc]
        self.extend(items)
        return self

    def __setitem__(self, i: Any, v: Any) -> None:
        super().__setitem__(i, [self._convert(x) for x in v] if isinstance(i, slice)
                            else self._convert(v))
        self._changed()


class _List(_Message):
    value: _Values

    def __init__(self, value: Any = None) -> None:
        self.value = _Values(value if value is not None else [], self._convert)

    @staticmethod
    def _convert(v: Any) -> Any:
        return v

    def _key(self) -> Any:
        return tuple(self.value)

    def _text(self, indent: str) -> str:
        return "".join(f"{indent}value: {self._show(v)}\n" for v in self.value)

    @staticmethod
    def _show(v: Any) -> str:
        return str(v)


_ESCAPES = {9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"', 39: "\\'", 92: "\\\\"}


class BytesList(_List):
    """``tf.train.BytesList``: ``value``, a list of bytes (str is encoded as UTF-8).

    >>> import finegrad as fg
    >>> fg.train.BytesList(value=[b"a", "b"]).value
    [b'a', b'b']
    """

    @staticmethod
    def _convert(v: Any) -> Any:
        if isinstance(v, str):
            return v.encode()
        if not isinstance(v, (bytes, bytearray, np.bytes_)):
            raise TypeError(f"BytesList: value must hold bytes, got {type(v).__name__}")
        return bytes(v)

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        return b"".join(_bytes_field(1, v, keep_empty=True) for v in self.value)

    def _parse(self, buf: bytes) -> None:
        self.value = _Values(parse(buf).get(1, []), self._convert)

    @staticmethod
    def _show(v: Any) -> str:
        return '"' + "".join(_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                             for b in v) + '"'


class FloatList(_List):
    """``tf.train.FloatList``: ``value``, floats stored as float32.

    >>> import finegrad as fg
    >>> fg.train.FloatList(value=[0.5, 3.1]).value
    [0.5, 3.0999999046325684]
    """

    @staticmethod
    def _convert(v: Any) -> Any:
        return float(np.float32(v))

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        return _bytes_field(1, np.asarray(self.value, "<f4").tobytes())

    def _parse(self, buf: bytes) -> None:
        out: list[float] = []
        for v in parse(buf).get(1, []):
            raw = v if isinstance(v, bytes) else int(v).to_bytes(4, "little")
            out += np.frombuffer(raw, "<f4").astype(float).tolist()
        self.value = _Values(out, self._convert)

    @staticmethod
    def _show(v: Any) -> str:
        text = f"{v:.6g}"
        for digits in range(6, 10):     # the shortest that reads back (protobuf's way)
            text = f"{v:.{digits}g}"
            if np.isnan(v) or np.float32(float(text)) == np.float32(v):
                break
        return text


class Int64List(_List):
    """``tf.train.Int64List``: ``value``, a list of int64s.

    >>> import finegrad as fg
    >>> fg.train.Int64List(value=[1, -2]).value
    [1, -2]
    """

    @staticmethod
    def _convert(v: Any) -> Any:
        n = int(v)
        if not -(1 << 63) <= n < (1 << 63):
            raise ValueError(f"Int64List: value {n} is out of the int64 range")
        return n

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        return _bytes_field(1, b"".join(_varint(v) for v in self.value))

    def _parse(self, buf: bytes) -> None:
        self.value = _Values([_signed(v) for v in _varints(parse(buf).get(1, []))],
                             self._convert)


_KINDS = {"bytes_list": (1, BytesList), "float_list": (2, FloatList),
          "int64_list": (3, Int64List)}


class Feature(_Message):
    """``tf.train.Feature``: one of ``bytes_list``, ``float_list`` or ``int64_list``.

    >>> import finegrad as fg
    >>> f = fg.train.Feature(int64_list=fg.train.Int64List(value=[1, 2]))
    >>> f.SerializeToString()
    b'\\x1a\\x04\\n\\x02\\x01\\x02'
    >>> f.WhichOneof("kind")
    'int64_list'
    """

    def __init__(self, bytes_list: Any = None, float_list: Any = None,
                 int64_list: Any = None) -> None:
        given = {k: v for k, v in (("bytes_list", bytes_list), ("float_list", float_list),
                                   ("int64_list", int64_list)) if v is not None}
        if len(given) > 1:
            raise ValueError(f"Feature: only one of bytes_list, float_list and int64_list "
                             f"can be set, got {sorted(given)}")
        self._kind: str | None = None
        for name, value in given.items():
            cls = _KINDS[name][1]
            if isinstance(value, dict):
                value = cls(**value)
            if not isinstance(value, cls):
                raise TypeError(f"Feature: {name} must be a {cls.__name__}, got "
                                f"{type(value).__name__}")
            self._kind, self._value = name, value

    def __getattr__(self, name: str) -> Any:
        if name not in _KINDS:
            raise AttributeError(name)
        if self._kind == name:
            return self._value
        fresh = _KINDS[name][1]()      # set as this Feature's kind once something is added

        def adopt() -> None:
            self._kind, self._value = name, fresh
        fresh.value.on_change = adopt
        return fresh

    def WhichOneof(self, oneof_group: str) -> str | None:
        """The field set ("bytes_list", "float_list", "int64_list") or None."""
        return self._kind

    def HasField(self, field_name: str) -> bool:
        return self._kind == field_name

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        if self._kind is None:
            return b""
        field = _KINDS[self._kind][0]
        return _bytes_field(field, self._value.SerializeToString(), keep_empty=True)

    def _parse(self, buf: bytes) -> None:
        fields = parse(buf)
        for name, (number, cls) in _KINDS.items():
            if number in fields:        # (the last one set wins, as protobuf's oneof)
                self._kind, self._value = name, cls.FromString(fields[number][-1])

    def _key(self) -> Any:
        return (self._kind, self._value._key() if self._kind else None)

    def _text(self, indent: str) -> str:
        if self._kind is None:
            return ""
        return f"{indent}{self._kind} {{\n{self._value._text(indent + '  ')}{indent}}}\n"


class _FeatureMap(dict):
    """``Features.feature``: reading a missing name adds an empty `Feature`, as
    protobuf's message maps do."""

    def __missing__(self, key: str) -> Feature:
        self[key] = Feature()
        return self[key]


class Features(_Message):
    """``tf.train.Features``: ``feature``, a dict of name to `Feature`.

    >>> import finegrad as fg
    >>> ex = fg.train.Example()
    >>> ex.features.feature["x"].float_list.value.extend([1.0, 2.0])
    >>> ex.features.feature["x"].WhichOneof("kind")
    'float_list'
    """

    def __init__(self, feature: Any = None) -> None:
        self.feature: dict[str, Feature] = _FeatureMap()
        for k, v in (feature or {}).items():
            if not isinstance(v, Feature):
                raise TypeError(f"Features: feature[{k!r}] must be a Feature, got "
                                f"{type(v).__name__}")
            self.feature[str(k)] = v

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        names = sorted(self.feature) if deterministic else list(self.feature)
        return b"".join(_bytes_field(1, _bytes_field(1, k.encode(), keep_empty=True)
                                     + _bytes_field(2, self.feature[k].SerializeToString(),
                                                    keep_empty=True), keep_empty=True)
                        for k in names)

    def _parse(self, buf: bytes) -> None:
        for entry in parse(buf).get(1, []):
            f = parse(entry)
            try:
                name = bytes(f.get(1, [b""])[-1]).decode()
            except UnicodeDecodeError:
                raise ProtoError("a feature name that is not UTF-8") from None
            self.feature[name] = Feature.FromString(f.get(2, [b""])[-1])

    def _key(self) -> Any:
        return {k: v._key() for k, v in self.feature.items()}

    def _text(self, indent: str) -> str:
        inner = indent + "  "
        return "".join(f'{indent}feature {{\n{inner}key: "{k}"\n{inner}value {{\n'
                       f"{v._text(inner + '  ')}{inner}}}\n{indent}}}\n"
                       for k, v in self.feature.items())


class Example(_Message):
    """``tf.train.Example``: ``features``, a `Features`.

    >>> import finegrad as fg
    >>> ex = fg.train.Example(features=fg.train.Features(feature={
    ...     "x": fg.train.Feature(float_list=fg.train.FloatList(value=[1.0, 2.0]))}))
    >>> fg.train.Example.FromString(ex.SerializeToString()) == ex
    True
    >>> fg.io.parse_single_example(ex.SerializeToString(),
    ...     {"x": fg.io.FixedLenFeature([2], fg.float32)})["x"].numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, features: Any = None) -> None:
        if features is not None and not isinstance(features, Features):
            raise TypeError(f"Example: features must be a Features, got "
                            f"{type(features).__name__}")
        self._set = features is not None
        self.features = features if features is not None else Features()

    def SerializeToString(self, deterministic: bool = False) -> bytes:
        body = self.features.SerializeToString(deterministic)
        return _bytes_field(1, body, keep_empty=self._set or bool(self.features.feature))

    def _parse(self, buf: bytes) -> None:
        for part in parse(buf).get(1, []):
            self._set = True
            self.features._parse(part)     # (a message field given twice merges)

    def _key(self) -> Any:
        return self.features._key()

    def _text(self, indent: str) -> str:
        if not self.features.feature:
            return ""
        return f"{indent}features {{\n{self.features._text(indent + '  ')}{indent}}}\n"

