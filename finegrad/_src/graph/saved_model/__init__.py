"""SavedModel: a `Module`'s variables and traced functions (custom gradients included) in a
directory of finegrad's own format, and loaded back without running user Python."""
