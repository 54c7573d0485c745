"""TensorFlow's names that are not ops (scopes, contexts, initializers, Module, printing,
distribute)."""
