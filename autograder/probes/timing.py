"""A virtual clock that advances with the work torch does, so timing code gets the same figure every run.

While a probe runs, time.perf_counter and its siblings read this clock. Each aten operation adds its
FLOPs (matrix products) or its output size (everything else) to the work done; one read in six also
adds a burst of interference four times the work since the previous read, as a busy machine would.
Minimum or median over repeats sees through the bursts; a single reading, a mean or a total does not.
"""
import time
import timeit

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from .calls import student_function

WORK_PER_SECOND = 7.31e8  # virtual machine speed: units of work per virtual second
BURST_EVERY, BURST_AT, BURST_SIZE = 6, 1, 4.0
WARMUP_WORK = 2e6  # one-off cost the first time each operation runs
CLOCKS = ("perf_counter", "monotonic", "time", "process_time", "thread_time")


def _cpu_attention_flops(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *args: object, **kwargs: object) -> int:
    """FLOPs of the fused CPU attention kernel, which torch's flop registry does not list."""
    batch = q.numel() // (q.shape[-2] * q.shape[-1])
    return 2 * batch * q.shape[-2] * k.shape[-2] * (q.shape[-1] + v.shape[-1])


class WorkClock(TorchDispatchMode):
    """Counts the work of every aten operation and serves it as a time."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """Keep torch from wrapping __torch_dispatch__ for dynamo, whose import costs a second and a half."""
        return False

    def __init__(self) -> None:
        super().__init__()
        self.work = 0.0
        self.interference = 0.0
        self.reads = 0
        self.work_at_last_read = 0.0
        self.seen: set[object] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        packet = func._overloadpacket
        if packet in flop_registry:
            self.work += flop_registry[packet](*args, **kwargs, out_val=out)
        elif packet is torch.ops.aten._scaled_dot_product_flash_attention_for_cpu:
            self.work += _cpu_attention_flops(*args)
        else:
            outputs = out if isinstance(out, (tuple, list)) else [out]
            self.work += sum(t.numel() for t in outputs if isinstance(t, torch.Tensor))
        if packet not in self.seen:
            self.seen.add(packet)
            self.work += WARMUP_WORK
        return out

    def seconds(self) -> float:
        """The current virtual time; every BURST_EVERY-th read comes after a burst of interference."""
        if self.reads % BURST_EVERY == BURST_AT:
            self.interference += BURST_SIZE * (self.work - self.work_at_last_read)
        self.reads += 1
        self.work_at_last_read = self.work
        return (self.work + self.interference) / WORK_PER_SECOND


def _timeit_defaults(timer: object) -> list[tuple[object, tuple]]:
    """(function, defaults) of timeit's functions, whose `timer=default_timer` was bound at import."""
    functions = [timeit.timeit, timeit.repeat, timeit.Timer.__init__]
    saved = [(function, function.__defaults__) for function in functions]
    for function, defaults in saved:
        function.__defaults__ = tuple(timer if value is timeit.default_timer else value for value in defaults)
    return saved


def virtual_time_probe(module: object, params: dict) -> dict:
    """Run the student's time_attention with every clock of `time` and `timeit` reading a WorkClock.

    Clocks the module imported by name (`from time import perf_counter`) are swapped in its namespace too.
    """
    time_attention = student_function(module, "time_attention")
    clock = WorkClock()
    originals = {name: getattr(time, name) for name in CLOCKS} | {name + "_ns": getattr(time, name + "_ns") for name in CLOCKS}
    virtual = {name: clock.seconds for name in CLOCKS} | {name + "_ns": lambda: int(clock.seconds() * 1e9) for name in CLOCKS}
    by_original = {id(function): virtual[name] for name, function in originals.items()} | {id(timeit.default_timer): clock.seconds}
    imported = {name: value for name, value in vars(module).items() if id(value) in by_original}  # bound at import
    saved_defaults = _timeit_defaults(clock.seconds)
    saved_timer, timeit.default_timer = timeit.default_timer, clock.seconds
    for name, function in virtual.items():
        setattr(time, name, function)
    for name, value in imported.items():
        setattr(module, name, by_original[id(value)])
    try:
        with clock:
            value = time_attention(params["T"], d=params["d"], repeats=params["repeats"])
    finally:
        for name, function in originals.items():
            setattr(time, name, function)
        for name, function in imported.items():
            setattr(module, name, function)
        timeit.default_timer = saved_timer
        for function, defaults in saved_defaults:
            function.__defaults__ = defaults
    return {"out": value, "reads": clock.reads}


def wall_time_probe(module: object, params: dict) -> dict:
    """The student's time_attention on the real clock, for growing T, until params["budget"] seconds are spent."""
    time_attention = student_function(module, "time_attention")
    start, sizes, seconds = time.perf_counter(), [], []
    for T in params["Ts"]:
        if time.perf_counter() - start > params["budget"]:
            break
        seconds.append(float(time_attention(T, d=params["d"], repeats=3)))
        sizes.append(T)
    return {"Ts": sizes, "seconds": seconds}
