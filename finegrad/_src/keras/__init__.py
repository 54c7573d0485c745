"""The implementation behind ``finegrad.keras``: Keras 3's API on finegrad's engine.

A Keras layer's weights are finegrad `Variable` objects (`KerasVariable`), so a
`GradientTape`, a `custom_gradient` reading them (``variables=``) and a traced
`finegrad.function` see them as they see any variable. Models trace symbolically with the
same graph machinery as ``finegrad.function``; ``fit`` runs its step as a traced function.
"""
