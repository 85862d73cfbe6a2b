"""The number of threads the cpu kernels use: numpy's BLAS (matmul, conv's products) is
minflow's only multi-threaded code, so its thread pool is what these set and read.

Changing it at run time goes through threadpoolctl (installed with scikit-learn) where it
is present; without it the count can only be read (from OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS / MKL_NUM_THREADS, else the cpu count), not changed.
"""
import os

__all__ = ["get_num_threads", "set_num_threads"]

_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _blas_pools():
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl.ThreadpoolController().select(user_api="blas")


def get_num_threads():
    """The number of threads of the cpu BLAS (as torch.get_num_threads).

    >>> minflow.get_num_threads() >= 1
    True
    """
    pools = _blas_pools()
    if pools is not None and pools.lib_controllers:
        return max(pool.num_threads for pool in pools.lib_controllers)
    for name in _ENV:
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return os.cpu_count() or 1


def set_num_threads(n):
    """Use ``n`` threads in the cpu BLAS from now on (as torch.set_num_threads).

    >>> before = minflow.get_num_threads()
    >>> minflow.set_num_threads(1)
    >>> minflow.get_num_threads()
    1
    >>> minflow.set_num_threads(before)
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads: expected a positive int, got {n!r}")
    pools = _blas_pools()
    if pools is None:
        raise RuntimeError("set_num_threads: changing the BLAS thread count at run time needs "
                           "the threadpoolctl package (pip install threadpoolctl); or set "
                           "OMP_NUM_THREADS before starting Python")
    pools.limit(limits=n)
