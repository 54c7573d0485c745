"""Control flow, eager and traced, differentiable: ``cond`` and ``while_loop``
(`cond_while`), ``case`` and ``switch_case`` (`switch_case`), ``map_fn`` (`map_fn`),
``scan``/``foldl``/``foldr`` (`scan`) and ``vectorized_map`` (`vectorized_map`)."""
