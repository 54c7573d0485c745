"""``keras.mixed_precision``: dtype policies (``"mixed_float16"``: compute in float16, keep
variables in float32)."""
from finegrad._src.keras.dtype_policies import DTypePolicy, global_policy, set_global_policy
from finegrad._src.keras.optimizers.loss_scale import LossScaleOptimizer

Policy = DTypePolicy

__all__ = ["DTypePolicy", "LossScaleOptimizer", "Policy", "global_policy", "set_global_policy"]
