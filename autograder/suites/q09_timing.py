"""Question 9: time_attention under a virtual clock, fit_exponent, scores_bytes, attention_flops."""
from reference import cost

from ..checks import Check, Note, show_args
from ..compare import kind, number_mismatch
from ..probes.inputs import make
from ..probes.timing import BURST_SIZE, WORK_PER_SECOND


def _timing(params: dict, result: dict) -> str | None:
    """One forward's time, seen through the bursts: within 0.97-1.3 times its matrix-product work."""
    value, repeats = result["out"], params["repeats"]
    if type(value) not in (int, float):
        return f"time_attention returned {kind(value)}; expected a float number of seconds"
    if result["reads"] < 2:
        return "time_attention's figure did not come from reading a clock (time.perf_counter) before and after the attention call"
    one_forward = 4 * params["T"] ** 2 * params["d"] / WORK_PER_SECOND
    ratio = value / one_forward
    if 0.97 <= ratio <= 1.3:
        return None
    if abs(ratio / repeats - 1) < 0.3:
        return f"the figure is about {repeats} forwards long: return the time of one forward, not the total"
    if ratio > 1.3:
        return (f"the figure is {ratio:.1f} times one forward: a noisy or cold run got in; time each repeat on its own after a "
                f"warm-up and keep the minimum or the median (a mean is pulled up by bursts up to {BURST_SIZE + 1:g}x)")
    return f"the figure is {ratio:.2f} times the work of one forward: run the attention between the two clock readings"


def _fit(params: dict, result: dict) -> str | None:
    expected = cost.fit_exponent(*params["args"])
    problem = number_mismatch(result["out"], expected, "the exponent", rel=1e-6)
    return problem and problem + " (fit a least-squares line to every point in log-log space, not a two-point slope)"


def _exact_int(reference):
    def judge(params: dict, result: dict) -> str | None:
        expected = reference(*make(params["args"]))
        got = result["out"]
        if type(got) is not int:
            return f"returned {kind(got)}; expected an int"
        if got != expected:
            return f"returned {got}, which is not the right count (check each factor: T, d, the entry size, 2 per multiply-add)"
        return None

    return judge


NOISY_T = [64, 128, 256, 512, 1024, 2048]
NOISY_SECONDS = [3e-5, 2.2e-4, 4.1e-4, 2.6e-3, 6.0e-3, 4.4e-2]
TIMINGS = [{"T": 64, "d": 32, "repeats": 5}, {"T": 128, "d": 64, "repeats": 5}, {"T": 96, "d": 48, "repeats": 7}]

CHECKS = [
    Check("time_attention reports one forward, robust to noise", "virtual_time", TIMINGS, _timing, ("time_attention",), 3,
          show=lambda p: f"T={p['T']}, d={p['d']}, repeats={p['repeats']}"),
    Check("fit_exponent is a least-squares slope in log-log space", "call",
          [{"fn": "fit_exponent", "args": [[16, 32, 64, 128], [1.0, 4.0, 16.0, 64.0]]},
           {"fn": "fit_exponent", "args": [NOISY_T, NOISY_SECONDS]},
           {"fn": "fit_exponent", "args": [[10, 100, 1000], [0.5, 0.2, 3.0]]}], _fit, ("fit_exponent",), 2, (), show_args),
    Check("scores_bytes counts T * T entries of the dtype", "call",
          [{"fn": "scores_bytes", "args": args} for args in ([1], [1000], [4096], [300, {"dtype": "float64"}], [64, {"dtype": "float16"}])],
          _exact_int(cost.scores_bytes), ("scores_bytes",), 1.5, (), show_args),
    Check("attention_flops counts both matrix products", "call",
          [{"fn": "attention_flops", "args": args} for args in ([1, 1], [5, 3], [128, 64], [1000, 16])],
          _exact_int(cost.attention_flops), ("attention_flops",), 1.5, (), show_args),
]


def _measured(result: dict) -> str:
    """`on this machine ... time grows like T^1.9`, from the real timings."""
    Ts, seconds = result["Ts"], result["seconds"]
    figures = ", ".join(f"T={T}: {s * 1e3:.2f} ms" for T, s in zip(Ts, seconds))
    trend = f"; time grows like T^{cost.fit_exponent(Ts, seconds):.2f}" if len(Ts) > 1 and min(seconds) > 0 else ""
    return f"your time_attention on this machine's real clock (not graded): {figures}{trend}"


NOTES = [Note("wall_time", {"Ts": [256, 512, 1024, 2048], "d": 64, "budget": 1.5}, _measured)]
