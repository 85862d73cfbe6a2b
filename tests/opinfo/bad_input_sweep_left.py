"""Bad inputs that minflow still handles otherwise than torch, each with its reason (see
test_bad_input_sweep.py): {(function or module name, case label): reason}."""

_ROUNDING = ("float32 rounding, not bad input: alpha=+-10 scales a sum of products whose terms "
             "cancel, and torch's and minflow's summation orders leave one of 50 values 2e-4 "
             "apart, beyond the float32 tolerance")
_NO_EARLY_RETURN = ("torch returns before checking dim (diff with n=0, roll of an empty "
                    "tensor) and so accepts an out-of-range dim; minflow checks dim first and "
                    "raises torch's IndexError")
_FLOAT_KERNELS = ("minflow's kernels for this op take floating dtypes only and say so "
                  "(DTypeError); torch also runs integer inputs on cpu")
_ONE_DTYPE = ("torch accepts an int64 tensor among float32 ones here; minflow requires one "
              "dtype and says so")
_PROMOTES = ("minflow promotes the int64 tensor to the others' float dtype, where torch's "
             "kernel refuses the mix (its 1-D/2-D conv_transpose and instance_norm's "
             "running_mean accept it)")
_INTEGER_OUT = ("an integer input: torch computes the loss into a tensor of the input's "
                "integer dtype and refuses the float result; minflow returns the float loss")
_UNPOOL_FLOATS = ("torch's max_unpool computes the output size in Python, so it accepts a "
                  "float kernel_size or stride (and a float padding fails in its arithmetic, "
                  "ValueError); minflow requires ints (TypeError)")
_NONE_IS_DEFAULT = ("minflow reads a positional None as the argument's default (max/min: no "
                    "dim, the reduction over all elements; trapz: no x, unit spacing); torch's "
                    "overloads refuse it")
_POOL_NDIM = ("a 1-D or 2-D input to a 2-D average pool: torch's check reads dim -3 first "
              "(IndexError); minflow names the expected 3-D or 4-D input (RuntimeError)")
_CELL_SIZES = ("torch's cell modules do not check their sizes and fail creating a "
               "negative-size tensor (RuntimeError); minflow checks them as torch's RNN, LSTM "
               "and GRU do (ValueError)")
_CHUNKED_DTYPE = ("torch's chunked linear_cross_entropy (options given) refuses an int64 input "
                  "among float32 weights with a ValueError before its matmul; minflow computes "
                  "the loss unchunked and raises the matmul's RuntimeError, naming both dtypes")

_LEFT = {
    "nn.functional.linear_cross_entropy.chunked": {"input=int64": _CHUNKED_DTYPE},
    "nn.functional.linear_cross_entropy.chunked_none": {"input=int64": _CHUNKED_DTYPE},
    "addbmm": {"alpha=big": _ROUNDING, "alpha=neg": _ROUNDING},
    "diff": {"arg1=big": _NO_EARLY_RETURN, "arg1=neg": _NO_EARLY_RETURN},
    "roll": {"arg1=big": _NO_EARLY_RETURN, "arg1=neg": _NO_EARLY_RETURN},
    "lu_unpack": {"input=int64": _FLOAT_KERNELS},
    "linalg.solve_triangular": {"arg0=int64": _FLOAT_KERNELS},
    "nn.functional.cosine_similarity": {"input=int64": _FLOAT_KERNELS,
                                        "arg0=int64": _FLOAT_KERNELS},
    "nn.functional.adaptive_avg_pool1d": {"input=int64": _FLOAT_KERNELS},
    "nn.functional.avg_pool1d": {"input=int64": _FLOAT_KERNELS},
    "nn.functional.avg_pool2d": {"input=int64": _FLOAT_KERNELS},
    "nn.functional.avg_pool3d": {"input=int64": _FLOAT_KERNELS},
    "nn.functional.max_pool1d": {"input=int64": _FLOAT_KERNELS},
    "nn.functional.local_response_norm": {"input=int64": _FLOAT_KERNELS},
    "nn.AvgPool1d": {"forward input=int64": _FLOAT_KERNELS},
    "nn.AvgPool2d": {"forward input=int64": _FLOAT_KERNELS,
                     "forward input ndim-1": _POOL_NDIM},
    "nn.AvgPool3d": {"forward input=int64": _FLOAT_KERNELS},
    "nn.LocalResponseNorm": {"forward input=int64": _FLOAT_KERNELS},
    "dist": {"input=int64": _ONE_DTYPE, "arg0=int64": _ONE_DTYPE},
    "nn.functional.conv3d": {"arg1=int64": _ONE_DTYPE},
    "nn.functional.conv_transpose3d": {"arg1=int64": _PROMOTES},
    "nn.functional.instance_norm": {"running_var=int64": _PROMOTES},
    "nn.functional.soft_margin_loss": {"input=int64": _INTEGER_OUT},
    "nn.functional.huber_loss": {"input=int64": _INTEGER_OUT},
    "nn.functional.gaussian_nll_loss": {"arg1=int64": _INTEGER_OUT},
    "nn.functional.hinge_embedding_loss": {"input=int64": _INTEGER_OUT},
    "nn.SoftMarginLoss": {
        "forward input=int64": _INTEGER_OUT,
        "forward input ndim-1": "a 0-d input against a (5, 5) target with reduction='none': "
                                "torch writes into an input-shaped result and refuses; "
                                "minflow broadcasts, as the elementwise formula does"},
    "nn.HuberLoss": {"forward input=int64": _INTEGER_OUT},
    "nn.HingeEmbeddingLoss": {"forward input=int64": _INTEGER_OUT},
    "max.binary": {"arg0=None": _NONE_IS_DEFAULT},
    "min.binary": {"arg0=None": _NONE_IS_DEFAULT},
    "trapz": {"arg0=None": _NONE_IS_DEFAULT},
    "trapezoid": {"arg0=None": _NONE_IS_DEFAULT},
    "cumulative_trapezoid": {"arg0=None": _NONE_IS_DEFAULT},
    "round.decimals_0": {
        "input=int64": "minflow's round returns an integer tensor unchanged whatever the "
                       "decimals; torch refuses decimals= on integer tensors "
                       "(NotImplementedError)"},
    "nn.FractionalMaxPool2d": {
        "ctor _random_samples=None": "random windows: drawn from torch's generator in torch "
                                     "and from minflow's in minflow",
        "ctor _random_samples=int64": _PROMOTES,
        "forward input=int64": _PROMOTES},
    "nn.FractionalMaxPool3d": {
        "ctor0=neg": "torch's 3-D module checks kernel_size > 0 in its constructor "
                     "(ValueError); minflow checks it at the call, with the RuntimeError of "
                     "the pooling function",
        "ctor _random_samples=int64": _PROMOTES,
        "forward input=int64": _PROMOTES},
    "nn.LPPool2d": {"ctor1=str": "a string kernel_size: torch fails converting it in its "
                                 "Python code (ValueError); minflow says it is not an int "
                                 "(TypeError)",
                    "forward input ndim-1": _POOL_NDIM},
    "nn.LPPool3d": {"ctor1=str": "a string kernel_size: torch fails converting it in its "
                                 "Python code (ValueError); minflow says it is not an int "
                                 "(TypeError)"},
    "nn.MultiLabelSoftMarginLoss": {
        "forward input ndim+2": "input and target of different shapes: torch broadcasts "
                                "them; minflow requires the target of input's shape",
        "forward input ndim-1": "a 0-d input: torch fails indexing it (IndexError); minflow "
                                "requires the target of input's shape (RuntimeError)"},
    "nn.RNNCell": {"ctor0=neg": _CELL_SIZES, "ctor1=neg": _CELL_SIZES},
    "nn.GRUCell": {"ctor0=neg": _CELL_SIZES, "ctor1=neg": _CELL_SIZES},
    "nn.LSTMCell": {"ctor0=neg": _CELL_SIZES, "ctor1=neg": _CELL_SIZES},
    "Conv2d": {"catalogue 7": "a 3-tuple padding for Conv2d: torch accepts it in the "
                              "constructor and fails at the call; minflow refuses it in the "
                              "constructor (ValueError)"},
    "avg_pool2d": {"catalogue 46": _POOL_NDIM},
    "Tensor": {"catalogue 96": "minflow's dtype arguments also take a dtype's name "
                               "(x.to(dtype='float32')); torch requires a torch.dtype"},
}
for _name in ("max_unpool1d", "max_unpool2d", "max_unpool3d"):
    for _variant in ("", ".grad"):
        _LEFT[f"nn.functional.{_name}{_variant}"] = {
            f"{arg}=float": _UNPOOL_FLOATS for arg in ("kernel_size", "stride", "padding")}
del _LEFT["nn.functional.max_unpool3d"]["stride=float"]   # torch refuses it there too

# a call made as a Tensor method too deviates as the function does
_METHODS = {"addbmm", "diff", "roll", "dist", "max.binary", "min.binary"}
LEFT = {(name, case): reason for name, cases in _LEFT.items()
        for case, reason in cases.items()}
LEFT.update({(name, f"{case} (method)"): reason for (name, case), reason in list(LEFT.items())
             if name in _METHODS and not case.startswith("input=")})
