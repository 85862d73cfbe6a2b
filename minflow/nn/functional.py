"""minflow.nn.functional: activations, layers as functions, losses (PyTorch's names)."""
from ..ops.activation import *  # noqa: F401,F403
from ..ops.activation_extra import *  # noqa: F401,F403
from ..ops.linalg import *  # noqa: F401,F403
from ..ops.conv import *  # noqa: F401,F403
from ..ops.conv3d import *  # noqa: F401,F403
from ..ops.fold import *  # noqa: F401,F403
from ..ops.shuffle import *  # noqa: F401,F403
from ..ops.nn import *  # noqa: F401,F403
from ..ops.loss import *  # noqa: F401,F403
from ..ops.ctc_loss import *  # noqa: F401,F403
from ..ops.join import *  # noqa
from ..ops.distance import *  # noqa: F401,F403
from ..ops.upsample import *  # noqa: F401,F403
from ..ops.conv_transpose import *  # noqa: F401,F403
from ..ops.pooling import *  # noqa: F401,F403
from ..ops.fractional_pool import *  # noqa: F401,F403
from ..ops.unpool import *  # noqa: F401,F403
from ..ops.grid_sample import *  # noqa: F401,F403
from ..ops.normalization import *  # noqa: F401,F403
from ..ops.margin_loss import *  # noqa: F401,F403
from ..ops.likelihood_loss import *  # noqa: F401,F403
from ..ops.dropout import *  # noqa: F401,F403
from ..ops.embedding_bag import *  # noqa: F401,F403
from ..ops.attention import *  # noqa: F401,F403
from ..ops.linear_cross_entropy import *  # noqa: F401,F403
