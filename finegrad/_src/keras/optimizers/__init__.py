"""Keras 3's optimizers (``keras.optimizers``) and learning-rate schedules."""
