"""``tf.data.experimental``: the constants training code still reads from it, and the
functions that preceded `Dataset` methods (``ignore_errors``, ``save``, ``load``,
``snapshot``, ``rejection_resample`` ...)."""
from finegrad._src.data.dataset import (
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)
from finegrad._src.data.options import (AutoShardPolicy, AutotuneOptions, DistributeOptions,
                                        ExternalStatePolicy, OptimizationOptions,
                                        ServiceOptions, ThreadingOptions)
from finegrad._src.data.transformations import (
    cardinality, enumerate_dataset, get_single_element, ignore_errors, load,
    rejection_resample, save, scan, snapshot, take_while, unbatch, unique)

__all__ = ["AUTOTUNE", "AutoShardPolicy", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "INFINITE_CARDINALITY", "OptimizationOptions",
           "ServiceOptions", "ThreadingOptions", "UNKNOWN_CARDINALITY", "cardinality",
           "enumerate_dataset", "get_single_element", "ignore_errors", "load",
           "rejection_resample", "save", "scan", "snapshot", "take_while", "unbatch",
           "unique"]
