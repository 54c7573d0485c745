"""Keras layers: the `Layer` base class and the built-in layers."""
from finegrad._src.keras.input_layer import Input, InputLayer
from finegrad._src.keras.input_spec import InputSpec
from finegrad._src.keras.layer import Layer
from finegrad._src.keras.layers.activation import (ELU, Activation, LeakyReLU, PReLU, ReLU,
                                                   Softmax)
from finegrad._src.keras.layers.attention import (AdditiveAttention, Attention,
                                                 MultiHeadAttention)
from finegrad._src.keras.layers.convolutional import (Conv1D, Conv1DTranspose, Conv2D,
                                                      Conv2DTranspose, Conv3D, Conv3DTranspose)
from finegrad._src.keras.layers.core import (Dense, EinsumDense, Embedding, Identity, Lambda,
                                             Masking, Rescaling)
from finegrad._src.keras.layers.depthwise import (DepthwiseConv1D, DepthwiseConv2D,
                                                  SeparableConv1D, SeparableConv2D)

from finegrad._src.keras.layers.merging import (Add, Average, Concatenate, Dot, Maximum,
                                                Minimum, Multiply, Subtract, add, average,
                                                concatenate, dot, maximum, minimum, multiply,
                                                subtract)
from finegrad._src.keras.layers.preprocessing import Normalization
from finegrad._src.keras.layers.normalization import (BatchNormalization, GroupNormalization,
                                                      LayerNormalization, RMSNormalization,
                                                      UnitNormalization)
from finegrad._src.keras.layers.pooling import (AveragePooling1D, AveragePooling2D,
                                                AveragePooling3D, MaxPooling3D,
                                                GlobalAveragePooling1D, GlobalAveragePooling2D,
                                                GlobalAveragePooling3D, GlobalMaxPooling1D,
                                                GlobalMaxPooling2D, GlobalMaxPooling3D,
                                                MaxPooling1D, MaxPooling2D)
from finegrad._src.keras.layers.recurrent import (GRU, LSTM, RNN, GRUCell, LSTMCell,
                                                  SimpleRNN, SimpleRNNCell, StackedRNNCells)
from finegrad._src.keras.layers.regularization import (ActivityRegularization, AlphaDropout,
                                                       Dropout, GaussianDropout, GaussianNoise,
                                                       SpatialDropout1D, SpatialDropout2D,
                                                       SpatialDropout3D)
from finegrad._src.keras.layers.wrappers import (Bidirectional, SpectralNormalization,
                                                 TimeDistributed, Wrapper)
from finegrad._src.keras.layers.reshaping import (Cropping1D, Cropping2D, Cropping3D, Flatten,
                                                  Permute, RepeatVector, Reshape, UpSampling1D,
                                                  UpSampling2D, UpSampling3D, ZeroPadding1D,
                                                  ZeroPadding2D, ZeroPadding3D)

# Keras's aliases
MaxPool1D, MaxPool2D = MaxPooling1D, MaxPooling2D
AvgPool1D, AvgPool2D = AveragePooling1D, AveragePooling2D
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution2DTranspose, Convolution3DTranspose = Conv2DTranspose, Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
Convolution1DTranspose = Conv1DTranspose

__all__ = [
    "Activation", "ActivityRegularization", "Add", "AdditiveAttention", "AlphaDropout",
    "Attention", "Average", "AveragePooling1D", "AveragePooling2D", "AveragePooling3D",
    "AvgPool1D", "AvgPool2D", "AvgPool3D", "BatchNormalization", "Bidirectional", "Concatenate",
    "Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
    "Convolution1D", "Convolution1DTranspose", "Convolution2D", "Convolution2DTranspose",
    "Convolution3D", "Convolution3DTranspose", "Cropping1D", "Cropping2D", "Cropping3D",
    "Dense", "DepthwiseConv1D", "DepthwiseConv2D", "Dot", "Dropout", "ELU", "EinsumDense",
    "Embedding", "Flatten", "GRU", "GRUCell", "GaussianDropout", "GaussianNoise",
    "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
    "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D",
    "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
    "GlobalMaxPooling3D", "GroupNormalization", "Identity", "Input", "InputLayer", "InputSpec",
    "LSTM", "LSTMCell", "Lambda", "Layer", "LayerNormalization", "LeakyReLU", "Masking",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "Maximum", "Minimum", "MultiHeadAttention", "Multiply", "Normalization", "PReLU", "Permute",
    "RMSNormalization", "RNN", "ReLU", "RepeatVector", "Rescaling", "Reshape",
    "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D", "SeparableConvolution2D",
    "SimpleRNN", "SimpleRNNCell", "Softmax", "SpatialDropout1D", "SpatialDropout2D",
    "SpatialDropout3D", "SpectralNormalization", "StackedRNNCells", "Subtract",
    "TimeDistributed", "UnitNormalization", "UpSampling1D", "UpSampling2D", "UpSampling3D",
    "Wrapper", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D", "add", "average",
    "concatenate", "dot", "maximum", "minimum", "multiply", "subtract",
]
