"""The timing the benchmarks share: each callable timed in turn within every repeat (so
noise on a shared machine falls on all alike), the best of the repeats kept."""
import timeit


def best_ms(fns, number=5, repeat=5):
    """{name: best milliseconds per call} of the callables in ``fns`` ({name: callable})."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number * 1e3)
    return best
