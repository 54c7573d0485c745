"""TensorFlow's names that are not ops: name scopes and control dependencies (`scopes`),
graph-era contexts (`contexts`), initializers (`initializers`), ``tf.Module`` (`module`),
``tf.print`` (`printing`), ``tf.debugging``'s assertions (`debugging`), ``tf.nest``'s
signatures (`nest`), ``tf.compat.v1``'s own names (`compat_v1`), ``tf.distribute``
(`distribute`) and ``tf.train``'s checkpoints (`checkpoint`, `checkpoint_manager`). This
layer sits above ops and below ad."""
