"""The implementation behind ``finegrad.keras``: Keras 3's API on finegrad's engine."""
