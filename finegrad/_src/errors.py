"""TensorFlow's error classes (``tf.errors``), raised where TensorFlow raises them.

Eager TensorFlow reports a failed runtime check (``tf.debugging.assert_*``,
``check_numerics``, ``ensure_shape``) as ``tf.errors.InvalidArgumentError``; code written for
it catches that class. Here every class also derives from the Python exception a reader would
expect (``InvalidArgumentError`` is a ``ValueError``), so plain ``except ValueError`` works too.
"""

from __future__ import annotations

from typing import Any


class OpError(Exception):
    """The base of TensorFlow's runtime errors.

    Accepts TensorFlow's ``(node_def, op, message)`` arguments or one message.

    >>> import finegrad as fg
    >>> str(fg.errors.InvalidArgumentError(None, None, "bad value"))
    'bad value'
    >>> isinstance(fg.errors.InvalidArgumentError("x"), ValueError)
    True
    """

    #: TensorFlow's code of the error (``tf.errors.UNKNOWN``; each class sets its own)
    error_code: int = 2

    def __init__(self, *args: Any) -> None:
        if len(args) >= 3:
            node_def, op, message = args[:3]
        else:
            node_def, op, message = None, None, (args[0] if args else "")
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message

    def __str__(self):
        return str(self.message)


class InvalidArgumentError(OpError, ValueError):
    """An argument had an invalid value (a failed assertion or numeric check)."""


class FailedPreconditionError(OpError, RuntimeError):
    """The system was not in a state the operation needs."""


class OutOfRangeError(OpError, IndexError):
    """An operation went past a valid range (end of an iterator)."""


class NotFoundError(OpError, LookupError):
    """Something requested was not found."""


class AlreadyExistsError(OpError, FileExistsError):
    """Something to be created already exists (a file `gfile.rename` would overwrite)."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented."""


class InternalError(OpError, RuntimeError):
    """An internal invariant was broken."""


class ResourceExhaustedError(OpError, MemoryError):
    """A resource (memory) ran out."""


class DataLossError(OpError):
    """Stored data is corrupted or unreadable (a saved dataset read with the wrong
    compression)."""


class UnknownError(OpError):
    """An error of no other class."""


class CancelledError(OpError):
    """An operation was cancelled."""


class DeadlineExceededError(OpError, TimeoutError):
    """A deadline passed before the operation completed."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not run the operation."""


class UnauthenticatedError(OpError):
    """The request has no valid credentials."""


class AbortedError(OpError):
    """The operation was aborted (a concurrency conflict)."""


class UnavailableError(OpError):
    """The runtime is not available now."""


class OperatorNotAllowedInGraphError(TypeError):
    """An operator (``bool``, iteration) applied to a graph tensor where its value is not
    known."""


# TensorFlow's error codes (``tf.errors.INVALID_ARGUMENT``...), and each class's own
# (``error_code``), as ``tensorflow/core/protobuf/error_codes.proto`` numbers them
OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16
for _cls, _code in ((CancelledError, CANCELLED), (UnknownError, UNKNOWN),
                    (InvalidArgumentError, INVALID_ARGUMENT),
                    (DeadlineExceededError, DEADLINE_EXCEEDED), (NotFoundError, NOT_FOUND),
                    (AlreadyExistsError, ALREADY_EXISTS),
                    (PermissionDeniedError, PERMISSION_DENIED),
                    (ResourceExhaustedError, RESOURCE_EXHAUSTED),
                    (FailedPreconditionError, FAILED_PRECONDITION), (AbortedError, ABORTED),
                    (OutOfRangeError, OUT_OF_RANGE), (UnimplementedError, UNIMPLEMENTED),
                    (InternalError, INTERNAL), (UnavailableError, UNAVAILABLE),
                    (DataLossError, DATA_LOSS), (UnauthenticatedError, UNAUTHENTICATED)):
    _cls.error_code = _code
