"""linalg.lu_factor (Gaussian elimination written with array operations: a loop over the
columns, every matrix of the batch at once) against LAPACK's getrf through linalg.solve
(numpy's gesv factors with getrf, then solves), in one run.

Run: python benchmarks/bench_lu.py
The ratio is lu_factor time / solve time for the same matrices and one right-hand side
column, so above 1 means LAPACK is faster. The two are timed in alternation, so other load
on the machine falls on both alike. lu_factor's results equal torch's (LAPACK's pivots;
tests/ops/test_linalg_lu.py); this measures what the array formulation costs.
"""

import numpy as np

import minflow
from _timing import best_ms

CASES = [(4096, 4), (1024, 8), (256, 32), (16, 128), (1, 512)]      # (batch, n)


def main():
    rng = np.random.default_rng(0)
    print(f"{'batch':>6} {'n':>5} {'lu_factor ms':>13} {'solve ms':>9} {'ratio':>6}")
    for batch, n in CASES:
        A = minflow.tensor(rng.standard_normal((batch, n, n)))
        B = minflow.tensor(rng.standard_normal((batch, n, 1)))
        fns = {"lu": lambda: minflow.linalg.lu_factor(A),
               "solve": lambda: minflow.linalg.solve(A, B)}
        X = minflow.linalg.lu_solve(*fns["lu"](), B)
        assert minflow.allclose(X, fns["solve"](), rtol=1e-8, atol=1e-10)
        ms = best_ms(fns, number=3)
        print(f"{batch:>6} {n:>5} {ms['lu']:>13.2f} {ms['solve']:>9.2f} "
              f"{ms['lu'] / ms['solve']:>6.2f}")


if __name__ == "__main__":
    main()
