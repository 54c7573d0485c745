"""Control flow: ``map_fn`` (`map_fn`) and ``scan``/``foldl``/``foldr`` (`scan`)."""
