"""The functions of `finegrad.ops`: each checks its arguments' framework and calls the active
backend's implementation of the same Keras name (modules by Keras's groups)."""
