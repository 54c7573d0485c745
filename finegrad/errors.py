"""TensorFlow's ``tf.errors`` namespace."""
from finegrad._src.errors import (OpError, InvalidArgumentError,
                                  FailedPreconditionError, OutOfRangeError, NotFoundError,
                                  AlreadyExistsError,
                                  UnimplementedError, InternalError, ResourceExhaustedError,
                                  DataLossError, UnknownError)

__all__ = ["OpError", "InvalidArgumentError", "FailedPreconditionError", "OutOfRangeError",
           "NotFoundError", "AlreadyExistsError", "UnimplementedError", "InternalError",
           "ResourceExhaustedError", "DataLossError", "UnknownError"]
