"""Known deviations on the OpInfo samples of nn.functional and linalg ops, and on every
OpInfo's error inputs (see opinfo_known.py)."""
_CHUNKED = ("the chunked variants pass options: torch then computes the loss in chunks, "
            "accumulating otherwise than its reference form (its own results differ from it "
            "by up to 6e-2 in float16); minflow accepts options and computes the reference "
            "form, equal to torch's on these samples in float16")
_CE_BFLOAT16 = ("cross_entropy in bfloat16: torch rounds log_softmax to bfloat16 before "
                "nll_loss (a confident sample's loss is then exactly 0); minflow's cross_entropy "
                "rounds only the loss; the logits agree")
KNOWN = {
    "nn.functional.linear_cross_entropy-bfloat16": _CE_BFLOAT16,
    **{f"nn.functional.linear_cross_entropy.{variant}-{dtype}": _CHUNKED
       for variant in ("chunked", "chunked_none") for dtype in ("float16", "bfloat16")},
    "nn.functional.avg_pool1d-int64":
        "minflow's avg_pool kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv_transpose1d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv_transpose2d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv1d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv2d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.local_response_norm-int64":
        "minflow's local_response_norm kernels take floating dtypes only (DTypeError); torch "
        "also runs int64 on cpu",
    "nn.functional.unfold-bool":
        "minflow's unfold (im2col) kernels take floating dtypes only (DTypeError); torch also "
        "runs bool on cpu",
    "nn.functional.avg_pool2d-int64":
        "minflow's avg_pool kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.batch_norm-float16":
        "1-D input: torch accepts the degenerate empty (0,) input with empty stats; minflow "
        "requires (N, C, *) input (RuntimeError)",
    "nn.functional.batch_norm-float32":
        "1-D input: torch accepts the degenerate empty (0,) input with empty stats; minflow "
        "requires (N, C, *) input (RuntimeError)",
    "nn.functional.batch_norm-float64":
        "1-D input: torch accepts the degenerate empty (0,) input with empty stats; minflow "
        "requires (N, C, *) input (RuntimeError)",
    "linalg.eigh-float32":
        "eigenvectors are defined up to sign: numpy's LAPACK and torch's (MKL) pick different "
        "signs; eigenvalues agree",
    "linalg.eigh-float64":
        "eigenvectors are defined up to sign: numpy's LAPACK and torch's (MKL) pick different "
        "signs; eigenvalues agree",
    "linalg.svd-float32":
        "singular vectors are defined up to sign (with full_matrices, the extra ones up to "
        "a basis of the null space): numpy's LAPACK and torch's (MKL) choose differently; "
        "singular values agree",
    "linalg.svd-float64":
        "singular vectors are defined up to sign (with full_matrices, the extra ones up to "
        "a basis of the null space): numpy's LAPACK and torch's (MKL) choose differently; "
        "singular values agree",
    "errors-masked_fill":
        "value 1j: minflow has no complex dtype, so a complex value fails the attr type check "
        "(TypeError), not torch's overflow check (RuntimeError)",
    "errors-gather":
        "out= a 1-element view of the index storage, resized to 2: torch resizes out within "
        "its storage first and then finds it overlapping the index; minflow checks the "
        "overlap of out as given (none) and resizes it into fresh memory",
    "errors-cat":
        "an empty input tensor that shares out's storage: torch's cat refuses it; minflow "
        "finds no memory overlap with an empty tensor (numpy's may_share_memory) and "
        "writes the result",
    "nn.functional.avg_pool3d-int64":
        "minflow's avg_pool kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv3d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
    "nn.functional.conv_transpose3d-int64":
        "minflow's convolution kernels take floating dtypes only (DTypeError); torch also runs "
        "int64 on cpu",
}
