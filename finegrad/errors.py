"""TensorFlow's ``tf.errors`` namespace: the error classes, their codes (``error_code``) and
the code constants."""
from finegrad._src.errors import (
    ABORTED, ALREADY_EXISTS, CANCELLED, DATA_LOSS, DEADLINE_EXCEEDED, FAILED_PRECONDITION,
    INTERNAL, INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE, PERMISSION_DENIED,
    RESOURCE_EXHAUSTED, UNAUTHENTICATED, UNAVAILABLE, UNIMPLEMENTED, UNKNOWN, AbortedError,
    AlreadyExistsError, CancelledError, DataLossError, DeadlineExceededError,
    FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError, OpError,
    OperatorNotAllowedInGraphError, OutOfRangeError, PermissionDeniedError,
    ResourceExhaustedError, UnauthenticatedError, UnavailableError, UnimplementedError,
    UnknownError)

__all__ = ["ABORTED", "ALREADY_EXISTS", "CANCELLED", "DATA_LOSS", "DEADLINE_EXCEEDED",
           "FAILED_PRECONDITION", "INTERNAL", "INVALID_ARGUMENT", "NOT_FOUND", "OK",
           "OUT_OF_RANGE", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "UNAUTHENTICATED",
           "UNAVAILABLE", "UNIMPLEMENTED", "UNKNOWN", "AbortedError", "AlreadyExistsError",
           "CancelledError", "DataLossError", "DeadlineExceededError", "FailedPreconditionError",
           "InternalError", "InvalidArgumentError", "NotFoundError", "OpError",
           "OperatorNotAllowedInGraphError", "OutOfRangeError", "PermissionDeniedError",
           "ResourceExhaustedError", "UnauthenticatedError", "UnavailableError",
           "UnimplementedError", "UnknownError"]
