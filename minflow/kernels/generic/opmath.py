"""float16 kernels as torch's cpu kernels compute them ("opmath"): in float32, rounded once.

A kernel calls ``in_float32`` on its float16 arrays and runs its own float32 code on them;
the dispatcher rounds the result to the op's float16 (``into`` does it for an ``out=``).
"""


def in_float32(xp, *arrays):
    """The arrays with float16 ones cast to float32 (None and others as they are)."""
    return [a.astype(xp.float32) if a is not None and a.dtype == xp.float16 else a
            for a in arrays]


def into(out, result):
    """``result`` written (rounded) into ``out``, or returned as it is when out is None."""
    if out is None:
        return result
    out[...] = result
    return out
