"""The implementation behind ``finegrad.data``: the part of ``tf.data`` training code uses."""
