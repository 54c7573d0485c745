"""Keras 3's metrics (``keras.metrics``)."""
