"""The layers of minflow.nn, one file per family as in torch.nn.modules."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .pooling import (MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, MaxPool1d,
                      AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d, LPPool1d, LPPool2d,
                      MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, LPPool3d,
                      MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d,
                      FractionalMaxPool3d)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .normalization import (LayerNorm, RMSNorm, GroupNorm, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d, LocalResponseNorm)
from .padding import (ConstantPad1d, ConstantPad2d, ZeroPad1d, ZeroPad2d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, CircularPad1d,
                      CircularPad2d, ConstantPad3d, ZeroPad3d, ReflectionPad3d,
                      ReplicationPad3d, CircularPad3d)
from .dropout import (Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout,
                      FeatureAlphaDropout)
from .sparse import Embedding, EmbeddingBag
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .flatten import Flatten, Unflatten
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax,
                         LogSoftmax, Softplus, Hardtanh, ReLU6, Hardsigmoid, Hardswish, Mish,
                         LogSigmoid, Softsign, PReLU, GLU)
from .activation_extra import (SELU, CELU, Softmin, Softmax2d, Softshrink, Hardshrink,
                               Tanhshrink, Threshold, RReLU)
from .fold import Fold, Unfold
from .shuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle
from .attention import MultiheadAttention
from .transformer import (TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
                          TransformerDecoder, Transformer)
from .loss import (L1Loss, MSELoss, NLLLoss, NLLLoss2d, CrossEntropyLoss, BCELoss,
                   BCEWithLogitsLoss, SmoothL1Loss, HuberLoss, KLDivLoss, SoftMarginLoss,
                   MarginRankingLoss,
                   HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss,
                   MultiLabelSoftMarginLoss, GaussianNLLLoss, PoissonNLLLoss,
                   MultiMarginLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss,
                   CTCLoss)
from .distance import CosineSimilarity, PairwiseDistance
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from . import rnn_functional  # noqa: F401  (torch.lstm, gru... in the minflow namespace)
from .lazy import (LazyModuleMixin, LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
                   LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d)

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions", "FractionalMaxPool2d", "FractionalMaxPool3d", "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d",
           "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Dropout",
           "Dropout2d", "Embedding", "Flatten", "Unflatten", "ReLU", "LeakyReLU", "ELU", "GELU",
           "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softplus", "Hardtanh", "ReLU6",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "L1Loss",
           "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
           "ConvTranspose2d", "AdaptiveMaxPool2d", "MaxPool1d", "AvgPool1d", "GroupNorm",
           "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid", "Softsign", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "SoftMarginLoss", "MarginRankingLoss", "CosineSimilarity",
           "PairwiseDistance", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "ConvTranspose1d", "InstanceNorm1d", "InstanceNorm2d", "ConstantPad1d",
           "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer", "ReflectionPad1d", "ReflectionPad2d",
           "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "PReLU",
           "GLU", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "MultiLabelSoftMarginLoss", "SELU",
           "CELU", "Softmin", "Softmax2d", "Softshrink", "Hardshrink", "Tanhshrink",
           "Threshold", "RReLU", "RMSNorm", "Fold", "Unfold", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle", "GaussianNLLLoss", "PoissonNLLLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "Bilinear", "LocalResponseNorm",
           "LPPool1d", "LPPool2d", "Dropout1d", "AlphaDropout", "FeatureAlphaDropout",
           "TripletMarginWithDistanceLoss", "EmbeddingBag", "NLLLoss2d", "CTCLoss",
           "AdaptiveLogSoftmaxWithLoss", "LazyModuleMixin", "LazyLinear", "LazyConv1d",
           "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "Conv3d", "ConvTranspose3d", "MaxPool3d",
           "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "BatchNorm3d", "InstanceNorm3d", "ConstantPad3d",
           "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "Dropout3d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
