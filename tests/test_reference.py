"""The oracle itself: additive attention (which PyTorch lacks) against explicit loops, and the lesson's numbers."""
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import additive, cost, dot_product, masking

widths = st.integers(1, 5)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(T=widths, d_s=widths, d_h=widths, d_a=widths, seed=st.integers(0, 10**6))
def test_additive_scores_match_a_loop_over_positions(T, d_s, d_h, d_a, seed):
    g = torch.Generator().manual_seed(seed)
    s, H = torch.randn(d_s, generator=g, dtype=torch.float64), torch.randn(T, d_h, generator=g, dtype=torch.float64)
    W, U = (
        torch.randn(d_a, d_s, generator=g, dtype=torch.float64),
        torch.randn(d_a, d_h, generator=g, dtype=torch.float64),
    )
    v, b = torch.randn(d_a, generator=g, dtype=torch.float64), torch.randn(d_a, generator=g, dtype=torch.float64)
    loop = []
    for j in range(T):
        hidden = [
            math.tanh(sum(W[a, i] * s[i] for i in range(d_s)) + sum(U[a, i] * H[j, i] for i in range(d_h)) + b[a])
            for a in range(d_a)
        ]
        loop.append(sum(float(v[a]) * float(hidden[a]) for a in range(d_a)))
    torch.testing.assert_close(additive.additive_scores(s, H, W, U, v, b), torch.tensor(loop, dtype=torch.float64))
    states = torch.stack([s, -s])
    rows = additive.weights_across_states(states, H, W, U, v, b, use_tanh=False)
    torch.testing.assert_close(rows[0], rows[1])  # without tanh the state does not matter
    torch.testing.assert_close(rows[0], additive.no_tanh_weights(H, U, v))
    weights, context = additive.additive_attention(s, H, W, U, v, b)
    torch.testing.assert_close(context, sum(weights[j] * H[j] for j in range(T)))


def test_lesson_toy_numbers():
    keys = torch.tensor([[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]])
    query = torch.tensor([1.0, 0.0])
    torch.testing.assert_close(
        dot_product.toy_weights(query, keys), torch.tensor([0.12, 0.11, 0.26, 0.29, 0.23]), atol=0.006, rtol=0
    )
    torch.testing.assert_close(
        dot_product.toy_weights(query, keys, 5.0), torch.tensor([0.01, 0.0, 0.30, 0.50, 0.18]), atol=0.006, rtol=0
    )


def test_read_grad_matches_the_formula_and_flops_and_fit():
    g = torch.Generator().manual_seed(0)
    e, H, up = (
        torch.randn(5, generator=g, dtype=torch.float64),
        torch.randn(5, 3, generator=g, dtype=torch.float64),
        torch.randn(3, generator=g, dtype=torch.float64),
    )
    a, c = additive.read(e, H)
    torch.testing.assert_close(additive.read_grad(e, H, up), a * ((H - c) @ up))
    assert cost.attention_flops(10, 4) == 4 * 10 * 10 * 4
    assert cost.scores_bytes(7, torch.float64) == 7 * 7 * 8
    assert abs(cost.fit_exponent([1, 2, 4], [3.0, 12.0, 48.0]) - 2.0) < 1e-12


def test_masking_and_mask():
    assert masking.causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    x = torch.arange(6.0).reshape(3, 2)
    torch.testing.assert_close(masking.prefix_average(x), torch.tensor([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]))


def test_attention_flops_formula_is_what_flop_counter_mode_counts():
    from torch.utils.flop_counter import FlopCounterMode

    for T, d in ((1, 1), (5, 3), (64, 16)):
        q, k, v = torch.zeros(3, T, d).unbind(0)
        with FlopCounterMode(display=False) as counter:
            torch.softmax(q @ k.T, dim=-1) @ v
        assert cost.attention_flops(T, d) == counter.get_total_flops()
