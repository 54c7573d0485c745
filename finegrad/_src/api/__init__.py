"""TensorFlow's names that are not ops: name scopes and control dependencies (`scopes`),
graph-era contexts (`contexts`), initializers (`initializers`), ``tf.Module`` (`module`),
``tf.print`` (`printing`), ``tf.debugging``'s assertions (`debugging`), ``tf.nest``'s
signatures (`nest`), ``tf.distribute`` on one machine (`distribute`) and ``tf.train``'s
checkpoints (`checkpoint`, `checkpoint_manager`). This layer sits above ops and below ad."""
