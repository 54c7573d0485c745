"""Keras's built-in layers, by family (core, activation, convolutional, depthwise, pooling,
normalization, merging, reshaping, regularization, recurrent, attention), with the window
arithmetic of convolutions and pools in `convolution_ops`."""
