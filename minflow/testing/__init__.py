"""minflow.testing: the checks every op gets, for built-in and user ops alike.

``check_op(fn, samples, reference)`` runs forward against a reference over dtypes and
devices, undeclared dtypes, non-contiguous inputs, meta inference, gradcheck and double
backward, eager vs graph gradients, in-place and ``out=`` variants and error inputs; a
failure names the check, the sample and the error (see checks.py).

``assert_close`` and ``make_tensor`` are torch.testing's (see compare.py).
"""
from .checks import CHECKS, CheckReport, OpCheckError, Sample, check_op
from .compare import assert_allclose, assert_close, make_tensor

__all__ = ["check_op", "Sample", "OpCheckError", "CheckReport", "CHECKS", "assert_close",
           "assert_allclose",
           "make_tensor"]
