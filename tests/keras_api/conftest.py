"""Fixtures shared by the Keras API tests."""
import pytest

import finegrad as tf


@pytest.fixture
def fresh_keras_session():
    """Keras's global state (layer-name counters, the uid registry) cleared around a test,
    so names such as ``dense_1`` do not depend on which tests ran before."""
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()
