"""Image resizing with interpolate: a (1, 3, 512, 512) image to 224 x 224, in one run.

Run: python benchmarks/bench_interpolate.py
Per mode: minflow on the float32 image (the baseline), minflow on the uint8 image (torch's
fixed-point arithmetic, rounding after each dim), and PyTorch CPU on the uint8 image where
installed; reported as ratios to the baseline, timed in alternation.
"""

import numpy as np

import minflow
import minflow.nn.functional as Fn
from _timing import best_ms

try:
    import torch
except ImportError:
    torch = None

MODES = [dict(mode="bilinear"), dict(mode="bicubic"), dict(mode="bilinear", antialias=True),
         dict(mode="bicubic", antialias=True), dict(mode="lanczos", antialias=True)]


def main():
    image = np.random.default_rng(0).integers(0, 256, (1, 3, 512, 512)).astype(np.uint8)
    ours_u8, ours_f32 = minflow.tensor(image), minflow.tensor(image.astype(np.float32))
    print(f"{'mode':<42}{'float32 ms':>11}{'uint8 / f32':>13}{'torch uint8 / f32':>19}")
    for kw in MODES:
        fns = {"float32": lambda: Fn.interpolate(ours_f32, size=(224, 224), **kw),
               "uint8": lambda: Fn.interpolate(ours_u8, size=(224, 224), **kw)}
        if torch is not None:
            theirs = torch.tensor(image)
            fns["torch"] = lambda: torch.nn.functional.interpolate(theirs, size=(224, 224), **kw)
        ms = best_ms(fns)
        torch_ratio = f"{ms['torch'] / ms['float32']:.2f}" if "torch" in ms else "-"
        print(f"{str(kw):<42}{ms['float32']:>11.1f}{ms['uint8'] / ms['float32']:>13.2f}"
              f"{torch_ratio:>19}")


if __name__ == "__main__":
    main()
