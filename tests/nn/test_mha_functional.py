"""nn.functional.multi_head_attention_forward side by side with torch's: packed and separate
projection weights, bias_k / bias_v, zero attention, static keys and values, bool and float
masks, causal masks, both weight paths, unbatched input; values and gradients."""
import numpy as np
import pytest

import minflow

RNG = np.random.default_rng(0)
E, HEADS, L, S, N = 6, 2, 3, 4, 2


def _leaf(lib, value):
    return None if value is None else lib.tensor(value, requires_grad=value.dtype != bool)


def _case(name):
    """The numpy arguments of one case."""
    args = {"query": RNG.standard_normal((L, N, E)), "key": RNG.standard_normal((S, N, E)),
            "in_proj_weight": RNG.uniform(-0.5, 0.5, (3 * E, E)),
            "in_proj_bias": RNG.uniform(-0.5, 0.5, 3 * E),
            "out_proj_weight": RNG.uniform(-0.5, 0.5, (E, E)),
            "out_proj_bias": RNG.uniform(-0.5, 0.5, E)}
    args["value"] = args["key"]
    if name == "bias_kv_zero_attn":
        args.update(bias_k=RNG.standard_normal((1, 1, E)), bias_v=RNG.standard_normal((1, 1, E)),
                    add_zero_attn=True)
    if name.startswith("masks"):
        args["attn_mask"] = RNG.uniform(size=(L, S)) > 0.7
        args["key_padding_mask"] = np.array([[False, False, True, False],
                                             [False, True, False, False]])
    if name == "masks_float_3d":
        args["attn_mask"] = RNG.standard_normal((N * HEADS, L, S))
        args["key_padding_mask"] = RNG.standard_normal((N, S))
    if name == "separate":
        args.update(use_separate_proj_weight=True, key=RNG.standard_normal((S, N, 5)),
                    value=RNG.standard_normal((S, N, 3)),
                    q_proj_weight=RNG.uniform(-0.5, 0.5, (E, E)),
                    k_proj_weight=RNG.uniform(-0.5, 0.5, (E, 5)),
                    v_proj_weight=RNG.uniform(-0.5, 0.5, (E, 3)), in_proj_weight=None)
    if name == "static_kv":
        args.update(static_k=RNG.standard_normal((N * HEADS, S, E // HEADS)),
                    static_v=RNG.standard_normal((N * HEADS, S, E // HEADS)))
    if name == "causal":
        args.update(attn_mask=np.triu(np.ones((L, S), bool), 1), is_causal=True, query=args[
            "query"], key=RNG.standard_normal((S, N, E)))
        args["value"] = args["key"]
    if name == "self":
        args["key"] = args["value"] = args["query"]
    if name == "unbatched":
        args["query"], args["key"] = args["query"][:, 0], args["key"][:, 0]
        args["value"] = args["key"]
    return args


CASES = ["plain", "self", "bias_kv_zero_attn", "masks", "masks_float_3d", "separate",
         "static_kv", "causal", "unbatched"]


def _call(lib, args, need_weights, average):
    tensors = {k: _leaf(lib, v) if isinstance(v, np.ndarray) else v for k, v in args.items()}
    if args["value"] is args["key"]:
        tensors["value"] = tensors["key"]
    if args["key"] is args["query"]:
        tensors["key"] = tensors["value"] = tensors["query"]
    positional = [tensors.pop(k, None) for k in ("query", "key", "value")]
    out = lib.nn.functional.multi_head_attention_forward(
        *positional, E, HEADS, tensors.pop("in_proj_weight"), tensors.pop("in_proj_bias"),
        tensors.pop("bias_k", None), tensors.pop("bias_v", None),
        tensors.pop("add_zero_attn", False), 0.0, tensors.pop("out_proj_weight"),
        tensors.pop("out_proj_bias"), need_weights=need_weights,
        average_attn_weights=average, **tensors)
    leaves = [t for t in positional + list(tensors.values()) if isinstance(t, lib.Tensor)]
    return out, leaves


@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("name", CASES)
def test_multi_head_attention_forward_as_torch(name, need_weights, average):
    torch = pytest.importorskip("torch")
    args = _case(name)
    (out, weights), leaves = _call(minflow, args, need_weights, average)
    (t_out, t_weights), t_leaves = _call(torch, args, need_weights, average)
    assert out.shape == tuple(t_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    assert (weights is None) == (t_weights is None)
    if weights is not None:
        np.testing.assert_allclose(weights.detach().numpy(), t_weights.detach().numpy(),
                                   rtol=1e-9, atol=1e-12)
    g = RNG.standard_normal(tuple(t_out.shape))
    (out * minflow.tensor(g)).sum().backward()
    (t_out * torch.tensor(g)).sum().backward()
    for ours, theirs in zip(leaves, t_leaves):
        assert (ours.grad is None) == (theirs.grad is None)     # static_k: key unused
        if theirs.grad is not None:
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8,
                                       atol=1e-12)


def test_the_module_calls_the_function():
    minflow.manual_seed(0)
    mha = minflow.nn.MultiheadAttention(E, HEADS, kdim=5, vdim=3, add_bias_kv=True,
                                        batch_first=True)
    q, k, v = minflow.randn(N, L, E), minflow.randn(N, S, 5), minflow.randn(N, S, 3)
    out, weights = mha(q, k, v, average_attn_weights=False)
    f_out, f_weights = minflow.nn.functional.multi_head_attention_forward(
        q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), E, HEADS, None,
        mha.in_proj_bias, mha.bias_k, mha.bias_v, False, 0.0, mha.out_proj.weight,
        mha.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=mha.q_proj_weight,
        k_proj_weight=mha.k_proj_weight, v_proj_weight=mha.v_proj_weight,
        average_attn_weights=False)
    np.testing.assert_array_equal(out.detach().numpy(), f_out.transpose(0, 1).detach().numpy())
    np.testing.assert_array_equal(weights.detach().numpy(), f_weights.detach().numpy())


@pytest.mark.parametrize("change", ["embed_dim", "heads", "kv_shape", "is_causal", "mask_2d",
                                    "mask_3d", "bias_k_only", "query_4d"])
def test_errors_as_torch(change):
    torch = pytest.importorskip("torch")

    def call(lib):
        q, k = lib.ones(L, N, E), lib.ones(S, N, E)
        v, mask = (lib.ones(S, N, E + 1) if change == "kv_shape" else k), None
        kwargs = {}
        if change == "is_causal":
            kwargs["is_causal"] = True
        if change == "mask_2d":
            mask = lib.zeros(L, S + 1)
        if change == "mask_3d":
            mask = lib.zeros(N, L, S)
        if change == "query_4d":
            q = lib.ones(1, L, N, E)
        bias_k = lib.ones(1, 1, E) if change == "bias_k_only" else None
        return lib.nn.functional.multi_head_attention_forward(
            q, k, v, E + 1 if change == "embed_dim" else E, 4 if change == "heads" else HEADS,
            lib.ones(3 * E, E), None, bias_k, None, False, 0.0, lib.ones(E, E), None,
            attn_mask=mask, **kwargs)
    with pytest.raises((RuntimeError, AssertionError)) as expected:
        call(torch)
    with pytest.raises(expected.type) as got:
        call(minflow)
    shapes_as_tuples = str(expected.value).replace("torch.Size([", "(").replace("])", ")")
    assert str(got.value) == shapes_as_tuples
