"""Question 7: linear_scores, weights_across_states, no_tanh_weights."""
import random

from reference import additive

from ..checks import draw, input_size, randn, same_as
from .q06_additive import ARGS, additive_inputs


def _states(rng: random.Random, use_tanh: bool) -> dict:
    params = additive_inputs(rng)
    s = params["args"][0]
    params["args"][0] = randn([rng.randint(1, 4), *s["randn"]], s["seed"], s["dtype"])
    params["kwargs"] = {"use_tanh": use_tanh}
    return params


def _closed_form(rng: random.Random) -> dict:
    _, H, _, U, v, _ = additive_inputs(rng)["args"]
    return {"args": [H, U, v]}


STATES = ("states", *ARGS[1:])

CHECKS = [
    same_as("linear_scores", additive.linear_scores, draw(701, 10, additive_inputs, input_size), "linear_scores leaves out the tanh", weight=3, arg_names=ARGS),
    same_as("weights_across_states", additive.weights_across_states, draw(702, 8, lambda rng: _states(rng, True), input_size),
            "weights_across_states with tanh: one row per state", weight=2, arg_names=STATES),
    same_as("weights_across_states", additive.weights_across_states, draw(703, 8, lambda rng: _states(rng, False), input_size),
            "weights_across_states without tanh", weight=2, arg_names=STATES),
    same_as("no_tanh_weights", additive.no_tanh_weights, draw(704, 10, _closed_form, input_size), "no_tanh_weights is softmax of v . U h_j", weight=3, arg_names=("H", "U", "v")),
]
