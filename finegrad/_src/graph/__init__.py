"""Graphs: the data model and its printer (`ir`), tracing (`tracing/`), the compiler and
executor (`compile/`), Python code as one op (`pyfunc`) and TensorFlow 1's gradient override
map (`override`)."""
