"""Known deviations from torch on OpInfo samples, each with its reason.

KNOWN maps a case id of test_opinfo.py (``name[.variant]-dtype`` for values,
``errors-name[.variant]`` for error inputs) to why minflow differs. These cases are expected
to fail (strict: a case that starts passing must leave the table).
"""
from opinfo_known_bfloat16 import KNOWN as _BFLOAT16
from opinfo_known_complex import KNOWN as _COMPLEX
from opinfo_known_core import KNOWN as _CORE
from opinfo_known_nn import KNOWN as _NN
from opinfo_known_small_ints import KNOWN as _SMALL_INTS

KNOWN = {**_CORE, **_NN, **_SMALL_INTS, **_BFLOAT16, **_COMPLEX}
