"""minflow.func: torch.func's function transforms over minflow's tape autograd.

    grad, grad_and_value    the gradient of a function returning a scalar
    vjp, jvp, linearize     vector-Jacobian and Jacobian-vector products
    jacrev, jacfwd, hessian whole Jacobians and Hessians
    vmap                    a function of one sample, mapped over a batch dimension
    functional_call         a module run with other parameters and buffers
    stack_module_state      the parameters and buffers of several models, stacked (to vmap)

Each transform takes a function and returns a function; they nest (``hessian`` is
``jacfwd(jacrev(f))``, ``vmap(grad(f))`` gives per-sample gradients). They are built on
``autograd.grad`` (reverse mode; jvp and jacfwd by the double-backward trick), and vmap
runs the function once per index of the mapped dimension: torch's values, not its speed.
"""
from ..nn.utils.stateless import functional_call
from .grad import grad, grad_and_value
from .transforms import (functionalize, hessian, jacfwd, jacrev, jvp, linearize,
                         replace_all_batch_norm_modules_, stack_module_state, vjp)
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev",
           "jacfwd", "hessian", "vmap", "functionalize", "stack_module_state",
           "replace_all_batch_norm_modules_"]
