"""``tf.image``: resizing, geometry, color, statistics and patches of images, each built from
finegrad ops so that gradients of any order come from the ops' own rules."""
