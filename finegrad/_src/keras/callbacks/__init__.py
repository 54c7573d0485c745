"""Keras callbacks: hooks ``fit``, ``evaluate`` and ``predict`` call at each epoch and batch."""
