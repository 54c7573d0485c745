"""TensorFlow's names that are not ops: name scopes and control dependencies (`scopes`),
graph-era contexts (`contexts`), initializers (`initializers`), ``tf.Module`` (`module`),
``tf.print`` (`printing`), ``tf.debugging``'s assertions (`debugging`) and ``tf.nest``'s
signatures (`nest`). This layer sits above ops and below ad."""
