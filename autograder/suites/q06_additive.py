"""Question 6: additive_scores and additive_attention."""
import random

from reference import additive

from ..checks import draw, input_size, randn, same_as


def additive_inputs(rng: random.Random) -> dict:
    """Random (s, H, W, U, v, b) with small random widths, T from 1."""
    T, d_s, d_h, d_a = rng.randint(1, 6), rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5)
    dtype, seed = rng.choice(["float32", "float64"]), rng.randrange(10**6)
    shapes = [[d_s], [T, d_h], [d_a, d_s], [d_a, d_h], [d_a], [d_a]]
    return {"args": [randn(shape, seed + i, dtype) for i, shape in enumerate(shapes)]}




ARGS = ("s", "H", "W", "U", "v", "b")

CHECKS = [
    same_as("additive_scores", additive.additive_scores, draw(601, 12, additive_inputs, input_size), "additive_scores e_j = v . tanh(W s + U h_j + b)", weight=5,
            arg_names=ARGS),
    same_as("additive_attention", additive.additive_attention, draw(602, 12, additive_inputs, input_size),
            "additive_attention gives softmax weights and their context", outputs=("the weights", "the context"), weight=5, arg_names=ARGS),
]
