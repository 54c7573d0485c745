"""``keras.mixed_precision``: dtype policies (``"mixed_float16"``: compute in float16, keep
variables in float32)."""
from finegrad._src.keras.dtype_policies import DTypePolicy, global_policy, set_global_policy

Policy = DTypePolicy

__all__ = ["DTypePolicy", "Policy", "global_policy", "set_global_policy"]
