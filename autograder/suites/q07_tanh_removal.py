"""Question 7: linear_scores, weights_across_states, no_tanh_weights."""
from reference import additive

from ..checks import draw, randn, same_as
from .q06_additive import additive_inputs, numel


def _states(rng, use_tanh: bool) -> dict:
    params = additive_inputs(rng)
    s = params["args"][0]
    params["args"][0] = randn([rng.randint(1, 4), *s["randn"]], s["seed"], s["dtype"])
    params["kwargs"] = {"use_tanh": use_tanh}
    return params


def _closed_form(rng) -> dict:
    _, H, _, U, v, _ = additive_inputs(rng)["args"]
    return {"args": [H, U, v]}


CHECKS = [
    same_as("linear_scores", additive.linear_scores, draw(701, 10, additive_inputs, numel), "linear_scores leaves out the tanh", weight=3),
    same_as("weights_across_states", additive.weights_across_states, draw(702, 8, lambda rng: _states(rng, True), numel),
            "weights_across_states with tanh: one row per state", weight=2),
    same_as("weights_across_states", additive.weights_across_states, draw(703, 8, lambda rng: _states(rng, False), numel),
            "weights_across_states without tanh", weight=2),
    same_as("no_tanh_weights", additive.no_tanh_weights, draw(704, 10, _closed_form, numel), "no_tanh_weights is softmax of v . U h_j", weight=3),
]
