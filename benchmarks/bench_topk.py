"""topk by partition (select the k kept, sort only those) against the full stable sort
it replaced (argsort, then the first k), in one run.

Run: python benchmarks/bench_topk.py
Both give the same indices (tests/ops/test_sorting.py); the ratio is sort time / topk
time, so above 1 means topk is faster. The two are timed in alternation, so other load on
the machine falls on both alike.
"""

import numpy as np

import minflow
from _timing import best_ms

CASES = [((1024, 4096), 10), ((1024, 4096), 512), ((64, 65536), 100), ((16384, 128), 8)]


def main():
    rng = np.random.default_rng(0)
    print(f"{'shape':>14} {'k':>5} {'full sort ms':>13} {'topk ms':>9} {'ratio':>6}")
    for shape, k in CASES:
        x = minflow.tensor(rng.standard_normal(shape).astype(np.float32))
        fns = {"sort": lambda: minflow.argsort(x, -1, descending=True)[:, :k],
               "topk": lambda: minflow.topk(x, k).indices}
        assert minflow.equal(fns["sort"](), fns["topk"]())
        ms = best_ms(fns)
        print(f"{str(shape):>14} {k:>5} {ms['sort']:>13.2f} {ms['topk']:>9.2f} "
              f"{ms['sort'] / ms['topk']:>6.2f}")


if __name__ == "__main__":
    main()
