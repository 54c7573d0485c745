"""Tracing: the recorder that turns a trace into a graph (`builder`), ``finegrad.function``
(`function`), one traced graph run compiled or replayed (`concrete`: ``ConcreteFunction``)
and symbolic gradients inside a trace (`gradients`)."""
