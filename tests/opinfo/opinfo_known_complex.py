"""Known complex-number deviations from torch on OpInfo samples (see opinfo_known.py)."""
_COMPLEX32 = ("float16 parts make complex32 (chalf) in torch; minflow has no complex32 and "
              "refuses float16 here with a clear error")
_PHASE = ("eigenvectors are unique up to a phase: for real inputs numpy's LAPACK (minflow) "
          "and torch's return some vectors with opposite signs, so an elementwise comparison "
          "fails; tests/ops/test_linalg_eig.py compares them up to phase, and the gradients of "
          "phase-invariant losses")
KNOWN = {
    "linalg.eig-float32": _PHASE,
    "linalg.eig-float64": _PHASE,
    "view_as_complex-float16": _COMPLEX32,
    "complex-float16": _COMPLEX32,
    "errors-complex": ("torch's complex() requires out= of exactly the result dtype; "
                       "minflow's out= casts the result into out's dtype where torch's casting "
                       "rule allows it, as for its other ops"),
}
