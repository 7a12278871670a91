"""Known mistakes of question 8: the gradient of the read, written by hand."""
from typing import Callable

from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import additive


def _grad(formula: Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]) -> dict[str, Callable[..., Tensor]]:
    """read_grad computed by formula(a, c, H, g, e) from the read's weights a (T,) and context c (d,): (T,)."""
    def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
        a, c = additive.read(e, H)
        return formula(a, c, H, g, e)

    return {"read_grad": read_grad}


BANK = Bank(
    8,
    {"read_grad": additive.read_grad},
    (
        Mistake(
            "grad_wrong_sign",
            N_("the gradient has the wrong sign: check which of h_j and c comes first"),
            1,
            _grad(lambda a, c, H, g, e: a * ((c - H) @ g)),
        ),
        Mistake("grad_missing_a", N_("the factor a_j is missing"), 2, _grad(lambda a, c, H, g, e: (H - c) @ g)),
        Mistake(
            "grad_missing_c",
            N_("the context c is not subtracted from h_j"),
            1,
            _grad(lambda a, c, H, g, e: a * (H @ g)),
        ),
        Mistake(
            "grad_c_outside_a",
            N_("c . g is subtracted outside the factor a_j; a_j multiplies the whole (h_j - c) . g"),
            2,
            _grad(lambda a, c, H, g, e: a * (H @ g) - c @ g),
        ),
        Mistake(
            "grad_diagonal_jacobian",
            N_("only the diagonal of the softmax's Jacobian is used; the other positions' weights also depend on e_j"),
            1,
            _grad(lambda a, c, H, g, e: a * (1 - a) * (H @ g)),
        ),
    ),
)
