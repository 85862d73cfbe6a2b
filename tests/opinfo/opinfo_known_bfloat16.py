"""Known bfloat16 deviations from torch on OpInfo samples (see opinfo_known.py).

minflow runs a bfloat16 op through its float32 kernel and rounds the result once; a
composite rounds after each of its ops, unless it computes in float32 (ops/opmath.py).
torch's cpu kernels round some intermediate steps to bfloat16 and not others, kernel by
kernel. Where the two orders of rounding differ by more than the comparison's tolerance
(rtol 1.6e-2), the case is listed here.
"""
_ROUNDING = ("bfloat16: minflow and torch round intermediate results to bfloat16 at "
             "different steps (minflow once after its float32 kernel, or after each op of its "
             "composite; torch as its cpu kernel does), so some values differ by a bfloat16 "
             "ulp or more")
_TIES = ("indices of tied values: bfloat16's 8-bit mantissa makes many ties in the sample, "
         "which torch's unstable sort orders in an unspecified way; the values agree")
KNOWN = {
    "sort-bfloat16": _TIES,
    "argsort-bfloat16": _TIES,
    "topk-bfloat16": _TIES,
    "mode-bfloat16": _TIES,
    "linspace-bfloat16": ("torch's bfloat16 linspace steps from both ends in bfloat16 "
                          "arithmetic; minflow computes the points in float32 and rounds each"),
    "linspace.tensor_overload-bfloat16": ("torch's bfloat16 linspace steps from both ends in "
                                          "bfloat16 arithmetic; minflow computes the points in "
                                          "float32 and rounds each"),
    "matrix_exp-bfloat16": ("torch's bfloat16 matrix_exp overflows to NaN on a sample where "
                            "minflow's float32 computation stays finite"),
    "histc-bfloat16": ("bin edges: torch computes them in bfloat16, minflow in float32, so "
                       "values near an edge fall in the neighbouring bin"),
}
for _name in ("addbmm", "addr", "cov",
              "nn.functional.adaptive_avg_pool3d", "nn.functional.binary_cross_entropy_with_logits",
              "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
              "nn.functional.conv_transpose3d", "nn.functional.group_norm",
              "nn.functional.instance_norm", "nn.functional.interpolate.area",
              "nn.functional.multilabel_soft_margin_loss", "nn.functional.batch_norm",
              "nn.functional.gelu", "index_reduce.mean", "log_softmax", "logit",
              "nn.functional.grid_sample", "nn.functional.nll_loss",
              "nn.functional.hinge_embedding_loss", "special.ndtr"):
    KNOWN[f"{_name}-bfloat16"] = _ROUNDING
