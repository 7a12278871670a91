"""The child's forbidden-work watch and virtual clock (autograder/sandbox/child/forbidden.py and clock.py), in-process.

The two modules are loaded from their files under a package name made here, as the worker loads them
(`_child`): they use only relative imports, the standard library and torch.
"""
import ast
import datetime
import importlib.util
import math
import sys
import threading
import time
import timeit
import types
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import torch.utils.benchmark as benchmark
from torch import nn
from torch.ao.nn import quantizable
from torch.autograd.graph import get_gradient_edge

ROOT = Path(__file__).resolve().parent.parent
CHILD = ROOT / "autograder" / "sandbox" / "child"
CORPUS = ROOT / "tests" / "corpus"
PACKAGE = "_child_tools_under_test"
# forward-mode AD's own
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _codec_module() -> types.ModuleType:
    """The kit's codec, as the child loads it: by path."""
    spec = importlib.util.spec_from_file_location("_codec_for_tests", CHILD.parent / "codec.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load(name: str) -> types.ModuleType:
    """CHILD/name.py as PACKAGE.name, the package made here (the real one's __init__ is not run)."""
    if PACKAGE not in sys.modules:
        from autograder.sandbox import boot

        boot.load_limits()  # as in a child: guard.py reads the limits as `_limits`
        package = types.ModuleType(PACKAGE)
        package.__path__ = [str(CHILD)]
        sys.modules[PACKAGE] = package
    spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{name}", CHILD / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


forbidden = _load("forbidden")
clock = _load("clock")
backward = _load("backward")
TABLE = forbidden.TABLE  # forbid_table.py, as the watch loaded it: every label's routes are tested below
SDPA, MHA, AUTOGRAD, EINSUM = (
    "F.scaled_dot_product_attention",
    "nn.MultiheadAttention",
    "torch.autograd",
    "torch.einsum",
)
REAL_PERF_COUNTER = time.perf_counter  # the builtin, bound before any block runs

import solutions.q03_attention as q03  # noqa: E402 (after the path is set)
import solutions.q05_multihead as q05  # noqa: E402
import solutions.q08_read_gradient as q08  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Small tensors on one intra-op thread: on a busy machine two threads make every tiny op 30 times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def only_the_tests_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch counts the Python threads alive besides the main one (a child has none of its own): here, the ones
    the test starts, not those already running in the test's process (an xdist worker's, which run beside every
    test). Where none run, as in a child, the count is the watch's own."""
    import _thread

    others = _thread._count()
    monkeypatch.setattr(forbidden, "_running_threads", lambda: _thread._count() - others)


def _mode_stacks() -> tuple[list, list]:
    return (
        torch.overrides._get_current_function_mode_stack(),
        torch.utils._python_dispatch._get_current_dispatch_mode_stack(),
    )


def _seen(work, labels=forbidden.LABELS) -> list[str]:
    with forbidden.ForbiddenWork(labels) as watch:
        work()
    assert _mode_stacks() == ([], []), "the watch left a mode behind"
    return watch.seen


# ---------------------------------------------------------------------------------------------------------------
# Forbidden work
# ---------------------------------------------------------------------------------------------------------------

torch.manual_seed(0)
Q, K, V = torch.randn(3, 2, 5, 4).unbind(0)  # (2, 5, 4) each
MHA_MODULE = nn.MultiheadAttention(8, 2, batch_first=True)
QUANTIZABLE_MHA = quantizable.MultiheadAttention(8, 2, batch_first=True)  # a pure-Python subclass: Linear, bmm, softmax
X = torch.randn(2, 5, 8)
E, H, G = (
    torch.randn(5, dtype=torch.float64),
    torch.randn(5, 3, dtype=torch.float64),
    torch.randn(3, dtype=torch.float64),
)


def _native_args() -> tuple:
    m = MHA_MODULE
    return X, X, X, 8, 2, m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias


def _loss(e: torch.Tensor) -> torch.Tensor:
    return torch.softmax(e, dim=-1) @ H @ G


def _graph() -> tuple[torch.Tensor, torch.Tensor]:
    e = E.clone().requires_grad_(True)
    return e, _loss(e)


def _in_thread(work) -> None:
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()


def _grad_fn_by_hand() -> None:
    e = E.clone().requires_grad_(True)
    a = torch.softmax(e, dim=-1)
    getattr(a, "grad" + "_fn")(H @ G)  # the node's backward, called without the engine


def _gradient_edge_by_hand() -> None:
    e, loss = _graph()
    # torch.autograd reads .grad_fn for the caller, who calls the node
    get_gradient_edge(loss).node(torch.ones_like(loss))


def _engine_directly() -> None:
    e, loss = _graph()
    engine = torch.autograd.variable.Variable._execution_engine
    engine.run_backward((loss,), (torch.ones_like(loss),), False, False, (e,), False, False)


ROUTES = [
    ("F.sdpa", lambda: F.scaled_dot_product_attention(Q, K, V, is_causal=True), SDPA),
    ("torch._C._nn.sdpa", lambda: torch._C._nn.scaled_dot_product_attention(Q, K, V), SDPA),
    ("aten.scaled_dot_product_attention", lambda: torch.ops.aten.scaled_dot_product_attention(Q, K, V), SDPA),
    (
        "aten math via getattr",
        lambda: getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")(Q, K, V, is_causal=True),
        SDPA,
    ),
    ("aten math .default", lambda: torch.ops.aten._scaled_dot_product_attention_math.default(Q, K, V), SDPA),
    # this torch's fused CPU kernel
    ("aten flash for cpu", lambda: clock._FLASH_CPU(Q[None], K[None], V[None], is_causal=True), SDPA),
    ("sdpa in a thread", lambda: _in_thread(lambda: F.scaled_dot_product_attention(Q, K, V)), SDPA),
    ("nn.MultiheadAttention", lambda: MHA_MODULE(X, X, X), MHA),
    ("nn.MultiheadAttention need_weights=False", lambda: MHA_MODULE(X, X, X, need_weights=False), MHA),
    ("torch.ao's quantizable MultiheadAttention", lambda: QUANTIZABLE_MHA(X, X, X), MHA),
    ("a subclass's _forward_impl called directly", lambda: QUANTIZABLE_MHA._forward_impl(X, X, X), MHA),
    ("F.multi_head_attention_forward", lambda: MHA_MODULE(X, X, X, average_attn_weights=False), MHA),
    ("torch._native_multi_head_attention", lambda: torch._native_multi_head_attention(*_native_args()), MHA),
    ("aten._native_multi_head_attention", lambda: torch.ops.aten._native_multi_head_attention(*_native_args()), MHA),
    ("Tensor.backward", lambda: _graph()[1].backward(), AUTOGRAD),
    ("torch.autograd.grad", lambda: torch.autograd.grad(*reversed(_graph())), AUTOGRAD),
    ("torch.autograd.backward", lambda: torch.autograd.backward(_graph()[1]), AUTOGRAD),
    ("autograd.functional.jacobian", lambda: torch.autograd.functional.jacobian(_loss, E), AUTOGRAD),
    ("torch.func.grad", lambda: torch.func.grad(_loss)(E), AUTOGRAD),
    ("torch.func.jacfwd (forward mode)", lambda: torch.func.jacfwd(_loss)(E), AUTOGRAD),
    ("grad_fn called by hand", _grad_fn_by_hand, AUTOGRAD),
    ("get_gradient_edge's node called by hand", _gradient_edge_by_hand, AUTOGRAD),
    ("the engine called directly", _engine_directly, AUTOGRAD),
    ("backward via getattr", lambda: getattr(_graph()[1], "back" + "ward")(), AUTOGRAD),
    ("torch.einsum", lambda: torch.einsum("btd,bsd->bts", Q, K), EINSUM),
    ("torch._VF.einsum", lambda: torch._VF.einsum("btd,bsd->bts", [Q, K]), EINSUM),
    ("aten.einsum", lambda: torch.ops.aten.einsum("btd,bsd->bts", [Q, K]), EINSUM),
    ("einsum via getattr", lambda: getattr(torch, "ein" + "sum")("btd,bsd->bts", Q, K), EINSUM),
]


def test_every_label_of_the_table_has_its_routes_tested() -> None:
    """A label added to forbid_table.py without a route here fails; every label a route names is one of the table's."""
    assert {label for _, _, label in ROUTES} == set(TABLE) == set(forbidden.LABELS)
    for label, row in TABLE.items():
        assert row.entry_points or row.operators or row.classes or row.engine, (
            f"{label} forbids nothing the watch can see"
        )
        assert row.names, f"{label} has no name for the source scan to find"
        assert set(row.covers) <= set(TABLE), f"{label} covers a label the table lacks"
    assert sum(row.engine for row in TABLE.values()) <= 1, "the autograd engine's work is one label's"


@pytest.mark.parametrize("work, label", [pytest.param(work, label, id=name) for name, work, label in ROUTES])
def test_every_route_is_flagged_with_its_label_and_only_when_asked(work, label: str) -> None:
    assert _seen(work) == [label]
    assert _seen(work, [label]) == [label]
    assert _seen(work, [other for other in forbidden.LABELS if other != label]) == []
    assert _seen(work, []) == []


def test_sdpa_inside_multihead_counts_as_multihead_only() -> None:
    """nn.MultiheadAttention calls SDPA inside itself: that is multi-head work, not the student calling SDPA."""

    def work() -> None:
        MHA_MODULE(X, X, X, need_weights=False)

    assert _seen(work, [SDPA]) == []
    assert _seen(work, [SDPA, MHA]) == [MHA]


class _OwnMultihead(nn.MultiheadAttention):
    """A student's subclass: what its methods do with torch is multi-head work, however they run."""

    def steps(self):
        """A generator method: its frame is left at each yield and entered again at each resume."""
        yield torch.softmax(Q, dim=-1)
        yield Q @ K.transpose(-2, -1)

    def around(self, work) -> list[str]:
        """Runs work (a watched block) while this method's frame is on the stack."""
        return work()

    def idle(self):
        """A generator method that does no torch work."""
        yield None

    def fails(self) -> None:
        """Raises without any torch work: its frame is left by the exception."""
        raise ValueError("no work")


def test_work_is_multihead_exactly_while_a_method_of_a_subclass_runs() -> None:
    """The profile function counts the subclass's frames as they are entered and left: a generator resumed inside
    the block, a method already running when the block starts, a thread started on a method; work after a method has
    left, at a yield or by an exception, is not multi-head work."""
    own = _OwnMultihead(8, 2, batch_first=True)
    steps = own.steps()
    next(steps)  # started before the block: its frame is left (yield) and entered again inside it
    assert _seen(lambda: next(steps), [MHA]) == [MHA]
    assert own.around(lambda: _seen(lambda: torch.softmax(Q, dim=-1), [MHA])) == [MHA]
    assert _seen(lambda: _in_thread(own.steps().__next__), [MHA]) == [MHA]
    assert _seen(lambda: (next(own.idle()), torch.softmax(Q, dim=-1)), [MHA]) == []  # left at its yield
    assert _seen(lambda: (pytest.raises(ValueError, own.fails), torch.softmax(Q, dim=-1)), [MHA]) == []

def test_patching_the_name_afterwards_hides_nothing() -> None:
    """References are bound at import: a student who rebinds F.scaled_dot_product_attention is still seen."""
    original = F.scaled_dot_product_attention
    try:
        F.scaled_dot_product_attention = lambda *args, **kwargs: original(*args, **kwargs)
        assert _seen(lambda: F.scaled_dot_product_attention(Q, K, V)) == [SDPA]
    finally:
        F.scaled_dot_product_attention = original


def test_switching_the_watch_off_counts_as_every_asked_label() -> None:
    def no_torch_function() -> None:
        with torch._C.DisableTorchFunction():
            MHA_MODULE(X, X, X)  # with need_weights, nothing but bmm and softmax reaches the dispatcher

    def pop_modes() -> None:
        torch.utils._python_dispatch._pop_mode()
        torch.overrides._pop_mode()

    def no_dispatch_modes() -> None:
        with torch.utils._python_dispatch._disable_current_modes():
            F.scaled_dot_product_attention(Q, K, V)

    assert _seen(no_torch_function, [SDPA, MHA]) == [SDPA, MHA]
    assert _seen(pop_modes, [AUTOGRAD]) == [AUTOGRAD]
    assert _seen(no_dispatch_modes, [SDPA]) == [SDPA]  # the function mode still sees the call


def _nanogpt() -> torch.Tensor:
    q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)  # (B, H, T, d)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    bias = torch.tril(torch.ones(5, 5)).view(1, 1, 5, 5)
    att = att.masked_fill(bias[:, :, :5, :5] == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    return att @ v


def _einsum_minus_1e9() -> torch.Tensor:
    scores = torch.einsum("btd,bsd->bts", Q, K) / math.sqrt(Q.shape[-1])
    scores = scores.masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), -1e9)
    return torch.einsum("bts,bsd->btd", scores.softmax(-1), V)


def _baddbmm_stable_softmax() -> torch.Tensor:
    scores = torch.baddbmm(torch.zeros(2, 5, 5, dtype=torch.float64), Q.double(), K.double().transpose(1, 2), alpha=0.5)
    scores = scores - scores.amax(-1, keepdim=True)
    weights = scores.exp() / scores.exp().sum(-1, keepdim=True)
    return torch.bmm(weights, V.double())


def _modules_and_printing() -> None:
    layer, norm = nn.Linear(4, 12), nn.LayerNorm(12)
    with torch.no_grad():
        norm(layer(Q)).softmax(-1)
    nn.Softmax(dim=-1)(Q)
    torch.special.softmax(Q, -1)
    torch.log_softmax(Q, -1)
    torch.vmap(lambda a, b: a @ b.T)(Q, K)
    f"{Q} {layer.weight!r}"


def _training_step() -> None:
    model = q05.MultiHeadSelfAttention(8, 2, max_len=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(X).pow(2).mean()
    loss.backward()
    optimizer.step()


HAND_WRITTEN = [
    ("solution attention", lambda: q03.attention(Q, K, V), []),
    ("solution single_head", lambda: q03.single_head(X[0], *torch.randn(3, 8, 4)), []),
    ("solution multi-head module", lambda: q05.MultiHeadSelfAttention(8, 2, max_len=8)(X, return_weights=True), []),
    ("solution read_grad", lambda: q08.read_grad(E, H, G), []),
    ("solution numerical_grad", lambda: q08.numerical_grad(lambda x: (x**3).sum(), E), []),
    ("nanoGPT manual path", _nanogpt, []),
    ("einsum and -1e9", _einsum_minus_1e9, [EINSUM]),
    ("baddbmm, float64, stable softmax", _baddbmm_stable_softmax, []),
    ("nn.Linear, LayerNorm, softmax forms, vmap, printing", _modules_and_printing, []),
]


@pytest.mark.parametrize("work, uses", [pytest.param(work, uses, id=name) for name, work, uses in HAND_WRITTEN])
def test_hand_written_work_is_flagged_only_for_what_it_calls(work, uses: list[str]) -> None:
    """Under every label of the table, hand-written attention is seen only for the calls it makes itself (einsum)."""
    assert _seen(work) == uses
    assert _seen(work, [label for label in TABLE if label not in uses]) == []


def test_other_labels_work_is_not_flagged() -> None:
    """Training with backward (question 10's work) under the attention labels flags nothing."""
    assert _seen(_training_step, [SDPA, MHA]) == []
    assert _seen(_training_step, [AUTOGRAD]) == [AUTOGRAD]


def test_the_watch_is_left_cleanly() -> None:
    with pytest.raises(ValueError, match="unknown"):
        forbidden.ForbiddenWork(["torch.nn"])
    with pytest.raises(RuntimeError, match="boom"):
        with forbidden.ForbiddenWork(forbidden.LABELS) as watch:
            F.scaled_dot_product_attention(Q, K, V)
            raise RuntimeError("boom")
    assert watch.seen == [SDPA] and _mode_stacks() == ([], [])
    assert threading.getprofile() is None
    F.scaled_dot_product_attention(Q, K, V)
    assert watch.seen == [SDPA]  # nothing is recorded after the block
    with forbidden.ForbiddenWork([]) as idle:
        assert _mode_stacks() == ([], [])  # nothing asked: no modes, no cost
        F.scaled_dot_product_attention(Q, K, V)
    assert idle.seen == []


def test_the_answer_is_copied_and_encoded_out_of_sight_of_a_students_mode() -> None:
    """A dispatch mode of the student's on the stack when the child copies an answer (plain) and encodes it (the codec,
    through plain.bare) sees neither: the grader gets the tensor's own values, not the mode's."""
    from torch.utils._python_dispatch import TorchDispatchMode

    plain = _load("plain")
    codec = _codec_module()

    class Swap(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is torch.ops.aten.detach.default:
                return torch.full_like(args[0], 7.0)
            return func(*args, **(kwargs or {}))

    x = torch.zeros(3)
    with Swap():
        assert torch.equal(x.detach(), torch.full((3,), 7.0))  # the mode does see a detach of the student's own
        copied = plain.plain(x, lambda obj: 0)
        frame = plain.bare(codec.encode, x)
    assert torch.equal(copied, torch.zeros(3)) and torch.equal(codec.decode(frame), torch.zeros(3))


def test_a_mode_left_on_a_stack_outside_the_watch_is_foreign_but_torchs_default_device_is_not() -> None:
    """Between the grader's blocks the stacks hold no mode of the grader's: a dispatch or function mode the student
    entered there is named (it would see the answer made plain data after the watch), torch.set_default_device's
    own mode is not."""
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Late(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Early(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    assert forbidden.foreign_modes() == []
    torch.set_default_device("cpu")
    try:
        assert forbidden.foreign_modes() == []
        with Late(), Early():
            assert forbidden.foreign_modes() == ["Early", "Late"]
    finally:
        torch.set_default_device(None)
    assert forbidden.foreign_modes() == [] and _mode_stacks() == ([], [])


# ---------------------------------------------------------------------------------------------------------------
# The corpus files that reach forbidden kernels: right outputs, flagged
# ---------------------------------------------------------------------------------------------------------------


def _corpus(relative: str) -> types.ModuleType:
    """A corpus file loaded as a module of the solutions package (its relative imports are the solutions')."""
    path = CORPUS / relative
    name = f"solutions._corpus_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_thread_running_beside_the_block_without_the_watch_counts_as_every_asked_label() -> None:
    """A thread started before the block (at import, say), or around threading's hook, runs unwatched: the block is
    `unwatched` and every asked label counts as seen, whatever it did; replacing the hook is also tampering."""
    import _thread

    stop = threading.Event()
    before = threading.Thread(target=stop.wait)
    before.start()
    try:
        with forbidden.ForbiddenWork([SDPA]) as watch:
            q03.attention(Q, K, V)
        assert watch.seen == [SDPA] and watch.unwatched and not watch.tampered
    finally:
        stop.set()
        before.join()
    running, stop, ended = threading.Event(), threading.Event(), _thread.allocate_lock()
    ended.acquire()
    try:
        with forbidden.ForbiddenWork([SDPA, MHA]) as watch:
            # no threading hook: no modes
            _thread.start_new_thread(lambda: (running.set(), stop.wait(), ended.release()), ())
            running.wait()
    finally:
        stop.set()
        ended.acquire()
    while forbidden._running_threads():  # the raw thread is counted until a moment after its function returned
        time.sleep(0.001)
    assert watch.seen == [SDPA, MHA] and watch.unwatched
    with forbidden.ForbiddenWork([SDPA]) as watch:
        threading.setprofile(None)
    assert watch.seen == [SDPA] and watch.tampered
    assert _seen(lambda: _in_thread(lambda: q03.attention(Q, K, V)), [SDPA]) == []  # started inside: watched
    assert threading.getprofile() is None


def test_a_thread_that_pops_its_own_modes_is_seen() -> None:
    """A thread started inside the block, so equipped with the modes by threading's hook, that pops them (or switches
    torch functions off) and runs forbidden work: the thread's own check sees it, every asked label counts and the
    block is tampered; an honest thread's work, handlers included, raises nothing."""

    def popped() -> None:
        torch._C._pop_torch_function_stack()
        torch._C._pop_torch_dispatch_stack(None)
        F.scaled_dot_product_attention(Q, K, V)

    def switched_off() -> None:
        with torch._C.DisableTorchFunction():
            F.scaled_dot_product_attention(Q, K, V)

    for work in (popped, switched_off):
        with forbidden.ForbiddenWork([SDPA, MHA]) as watch:
            _in_thread(work)
        assert watch.seen == sorted([SDPA, MHA]) and watch.tampered, work.__name__
    with forbidden.ForbiddenWork([SDPA, MHA]) as watch:
        _in_thread(lambda: (q03.attention(Q, K, V), _in_thread(lambda: q03.attention(Q, K, V))))
    assert watch.seen == [] and not watch.tampered
    assert _mode_stacks() == ([], []) and threading.getprofile() is None


def test_a_builtin_rebound_changes_nothing_the_watch_computes() -> None:
    """The watch's code looks builtins up in a private copy of the builtins module, taken before any student code: a
    student's `builtins.any = operator.not_`, made with the pop and the push of the watch's mode inside one C call,
    leaves the watch's registry judging the pop as its own work (before: its `any` answered False, and the pop went
    unseen, tamper_builtins_rebound)."""
    import builtins
    import functools
    import gc
    import operator

    real_any = builtins.any
    gc.disable()  # no collection (a finaliser's Python frame) between the pop and the push: only the registry judges
    try:
        with forbidden.ForbiddenWork([SDPA]) as watch:
            steps = [
                functools.partial(setattr, builtins, "any", operator.not_),
                torch._C._pop_torch_function_stack,
                functools.partial(torch._C._push_on_torch_function_stack, watch._function_mode),
                functools.partial(setattr, builtins, "any", real_any),
            ]
            list(map(operator.call, steps))
    finally:
        gc.enable()
    assert builtins.any is real_any
    assert watch.seen == [SDPA] and "mode stacks" in watch.tampered, watch.tampered
    assert _mode_stacks() == ([], [])


def test_a_raw_thread_that_ends_inside_the_block_still_makes_it_unwatched() -> None:
    """A thread started around threading (its _thread functions, a fresh copy of them refused by the Guard) that runs
    the forbidden work and ends before the block does leaves no trace among the living threads: its start alone
    counts."""
    import _thread

    for start in ("start_new_thread", "start_new"):
        done = _thread.allocate_lock()
        done.acquire()
        with forbidden.ForbiddenWork([MHA]) as watch:
            getattr(_thread, start)(lambda: (q03.attention(Q, K, V), done.release()), ())  # noqa: B023 - ran here
            done.acquire()  # the thread's work is over before the block ends
            while forbidden._running_threads():
                time.sleep(0.001)
        assert watch.seen == [MHA] and watch.unwatched, start
    with forbidden.ForbiddenWork([MHA]) as watch:
        _in_thread(lambda: q03.attention(Q, K, V))  # threading's own threads keep the watch: nothing is counted
    assert watch.seen == [] and not watch.unwatched


@pytest.mark.parametrize(
    "relative",
    [
        "wrong/q03_ops_aten_math.py",
        pytest.param(
            "wrong/q03_ops_flash_kernel.py",
            marks=pytest.mark.skipif(
                not hasattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu"),
                reason="the file calls torch 2.3's name of the kernel",
            ),
        ),
    ],
)
def test_corpus_q03_kernels_are_right_but_flagged(relative: str) -> None:
    module = _corpus(relative)
    cases = [
        ((1, 4), (1, 4), 4, True),
        ((3, 4), (3, 4), 6, True),
        ((2, 5, 4), (2, 5, 4), 3, False),
        ((2, 3, 5, 8), (1, 5, 8), 8, True),
        ((3, 4), (6, 4), 2, False),
    ]
    for dtype in (torch.float32, torch.float64):
        for q_shape, k_shape, dv, causal in cases:
            q, k = torch.randn(q_shape, dtype=dtype), torch.randn(k_shape, dtype=dtype)
            v = torch.randn(k_shape[:-1] + (dv,), dtype=dtype)
            with forbidden.ForbiddenWork([SDPA, MHA]) as watch:
                out, weights = module.attention(q, k, v, causal)
            expected_out, expected_weights = q03.attention(q, k, v, causal)
            torch.testing.assert_close(out, expected_out)
            torch.testing.assert_close(weights, expected_weights)
            assert watch.seen == [SDPA]


def test_corpus_q05_native_kernel_is_right_but_flagged() -> None:
    module = _corpus("wrong/q05_native_mha_kernel.py")
    for dtype in (torch.float32, torch.float64):
        for B, T, D, n_heads in [(2, 5, 8, 2), (1, 1, 6, 3), (3, 7, 12, 4)]:
            torch.manual_seed(1)
            wrong = module.MultiHeadSelfAttention(D, n_heads, max_len=16).to(dtype)
            torch.manual_seed(1)
            right = q05.MultiHeadSelfAttention(D, n_heads, max_len=16).to(dtype)
            x = torch.randn(B, T, D, dtype=dtype)
            with forbidden.ForbiddenWork([SDPA, MHA]) as watch:
                out, weights = wrong(x, return_weights=True)
            expected_out, expected_weights = right(x, return_weights=True)
            torch.testing.assert_close(out, expected_out)
            torch.testing.assert_close(weights, expected_weights)
            assert watch.seen == [MHA]


def test_corpus_q08_hidden_backward_is_right_but_flagged() -> None:
    module = _corpus("wrong/q08_backward_hidden.py")
    with torch.no_grad(), forbidden.ForbiddenWork([AUTOGRAD]) as watch:  # the suite calls read_grad under no_grad
        got = module.read_grad(E, H, G)
    torch.testing.assert_close(got, q08.read_grad(E, H, G))
    assert watch.seen == [AUTOGRAD]


# ---------------------------------------------------------------------------------------------------------------
# The virtual clock
# ---------------------------------------------------------------------------------------------------------------

TIMINGS = [(64, 32, 5), (128, 64, 5), (96, 48, 7)]  # (T, d, repeats) of the grading rule

STUDENT_HEADER = '''
import math
import statistics
import time
import timeit
from time import perf_counter

import torch
from torch.utils import benchmark


def attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def inputs(T, d):
    q, k, v = torch.randn(3, T, d).unbind(0)
    attention(q, k, v)  # warm-up
    return q, k, v


def each(T, d, repeats, clock=None):
    clock = clock or time.perf_counter  # looked up in time at each call
    q, k, v = inputs(T, d)
    times = []
    for _ in range(repeats):
        start = clock()
        attention(q, k, v)
        times.append(clock() - start)
    return times
'''

BODIES = {  # name -> body of time_attention(T, d, repeats)
    "perf_counter min": "return min(each(T, d, repeats))",
    "perf_counter median": "return statistics.median(each(T, d, repeats))",
    "perf_counter imported by name": "return min(each(T, d, repeats, clock=lambda: perf_counter()))",
    "perf_counter bound as a default": "return min(each(T, d, repeats))",
    "perf_counter_ns min": "return min(each(T, d, repeats, clock=lambda: time.perf_counter_ns() / 1e9))",
    "monotonic min": "return min(each(T, d, repeats, clock=lambda: time.monotonic()))",
    "process_time min": "return min(each(T, d, repeats, clock=lambda: time.process_time()))",
    "timeit.repeat min": "q, k, v = inputs(T, d)\n    return min(timeit.repeat(lambda: attention(q, k, v), "
                         "repeat=repeats, number=1))",
    "timeit.Timer.repeat min": "q, k, v = inputs(T, d)\n    return min(timeit.Timer(lambda: attention(q, k, "
                               "v)).repeat(repeats, 1))",
    "benchmark blocked_autorange median": (
        "q, k, v = inputs(T, d)\n    timer = benchmark.Timer('attention(q, k, v)', "
        "globals=dict(attention=attention, q=q, k=k, v=v))\n    return timer.blocked_autorange().median"
    ),
    "benchmark adaptive_autorange median": (
        "q, k, v = inputs(T, d)\n    timer = benchmark.Timer('attention(q, k, v)', "
        "globals=dict(attention=attention, q=q, k=k, v=v))\n    return timer.adaptive_autorange().median"
    ),
    "benchmark timeit(100) mean": (
        "q, k, v = inputs(T, d)\n    timer = benchmark.Timer('attention(q, k, v)', "
        "globals=dict(attention=attention, q=q, k=k, v=v))\n    return timer.timeit(100).mean"
    ),
    # wrong ones
    "mean over repeats": "times = each(T, d, repeats)\n    return sum(times) / len(times)",
    "total of the repeats": "return sum(each(T, d, repeats))",
    "single reading after a warm-up": "return each(T, d, 1)[0]",
    "single cold reading": (
        "q, k, v = torch.randn(3, T, d).unbind(0)\n    start = time.perf_counter()\n    attention(q, k, v)\n"
        "    return time.perf_counter() - start"
    ),
}
WRONG = {"mean over repeats", "total of the repeats", "single reading after a warm-up", "single cold reading"}


def _student(name: str) -> types.ModuleType:
    """A student's q09 module, executed now (before any block), so names imported from time are the real clocks."""
    source = STUDENT_HEADER + f"\n\ndef time_attention(T, d=64, repeats=5):\n    {BODIES[name]}\n"
    if name == "perf_counter bound as a default":
        source = source.replace("clock=None", "clock=perf_counter")
    module = types.ModuleType(f"exercises_q09_{abs(hash(name))}")
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def _figure(module: types.ModuleType, T: int, d: int, repeats: int) -> tuple[float, float, int]:
    """(seconds, ratio to one forward's matrix-product work, clock reads) under the virtual clock."""
    torch.manual_seed(0)
    with clock.virtual_clock([module]) as work_clock, forbidden.ForbiddenWork([]):
        seconds = module.time_attention(T, d=d, repeats=repeats)
    return seconds, seconds / (4 * T * T * d / clock.WORK_PER_SECOND), work_clock.reads


RIGHT_CASES = [
    pytest.param(name, *sizes, id=f"{name}-T{sizes[0]}")
    for name in BODIES
    if name not in WRONG
    # adaptive: ~1 s at T=128, far more at 64
    for sizes in (TIMINGS if "adaptive" not in name else TIMINGS[1:2])
]


@pytest.mark.parametrize("name, T, d, repeats", RIGHT_CASES)
def test_every_timing_tool_reads_the_virtual_clock_deterministically(name: str, T: int, d: int, repeats: int) -> None:
    module = _student(name)
    seconds, ratio, reads = _figure(module, T, d, repeats)
    assert 0.97 <= ratio <= 1.3, f"{name}: {ratio:.3f} times one forward"
    assert reads >= 2
    assert _figure(module, T, d, repeats) == (seconds, ratio, reads), "not the same figure on a second run"


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_noisy_figure_falls_outside(name: str) -> None:
    module = _student(name)
    for T, d, repeats in TIMINGS:
        _, ratio, _ = _figure(module, T, d, repeats)
        assert not 0.97 <= ratio <= 1.3, f"{name} passes at T={T}: {ratio:.3f}"


@pytest.mark.parametrize(
    "relative",
    [
        "right/q09_benchmark_blocked_autorange.py",
        "right/q09_benchmark_timeit.py",
        "right/q09_benchmark_adaptive_autorange.py",
    ],
)
def test_corpus_benchmark_timings_pass(relative: str) -> None:
    module = _corpus(relative)
    for T, d, repeats in TIMINGS if "adaptive" not in relative else TIMINGS[1:2]:
        _, ratio, reads = _figure(module, T, d, repeats)
        assert 0.97 <= ratio <= 1.3 and reads >= 2, (T, ratio, reads)


def _timing_references() -> dict:
    """Every clock reference the block swaps, as it is now."""
    timer_init = benchmark.utils.timer.Timer.__init__
    return {
        "time": {name: getattr(time, name) for name in dir(time) if callable(getattr(time, name))},
        "timeit": (
            timeit.default_timer,
            timeit.timeit.__defaults__,
            timeit.repeat.__defaults__,
            timeit.Timer.__init__.__defaults__,
        ),
        "benchmark": (benchmark.utils.timer.timer, timer_init.__defaults__, timer_init.__kwdefaults__),
    }


def test_clocks_are_restored_even_after_an_exception() -> None:
    module = _student("perf_counter bound as a default")
    before = _timing_references()
    with pytest.raises(RuntimeError, match="boom"):
        with clock.virtual_clock([module]) as work_clock:
            assert time.perf_counter is not REAL_PERF_COUNTER and module.perf_counter is not REAL_PERF_COUNTER
            assert module.each.__defaults__[0] is not REAL_PERF_COUNTER and timeit.default_timer is time.perf_counter
            assert torch.utils._python_dispatch._get_current_dispatch_mode_stack() == [work_clock]
            raise RuntimeError("boom")
    assert time.perf_counter is REAL_PERF_COUNTER and type(time.perf_counter) is types.BuiltinFunctionType
    assert timeit.default_timer is REAL_PERF_COUNTER and timeit.Timer.__init__.__defaults__[2] is REAL_PERF_COUNTER
    assert module.perf_counter is REAL_PERF_COUNTER and module.each.__defaults__ == (REAL_PERF_COUNTER,)
    assert _timing_references() == before
    assert _mode_stacks() == ([], [])


def test_clocks_bound_inside_the_block_are_made_real_on_exit() -> None:
    """A torch.utils.benchmark module imported inside the block binds the virtual clock; on exit it gets the real
    one."""
    name = "torch.utils.benchmark._clock_test_probe"
    try:
        with clock.virtual_clock([]) as work_clock:
            probe = types.ModuleType(name)
            sys.modules[name] = probe
            exec(
                "import time\nfrom time import perf_counter\ndef read(timer=time.perf_counter):\n    return timer()",
                probe.__dict__,
            )
            probe.read()
            assert work_clock.reads == 1
        assert probe.perf_counter is REAL_PERF_COUNTER and probe.read.__defaults__ == (REAL_PERF_COUNTER,)
    finally:
        sys.modules.pop(name, None)


def test_work_clock_counts_flops_and_bursts() -> None:
    work_clock = clock.WorkClock()
    a, b = torch.randn(8, 4), torch.randn(4, 6)
    with work_clock:
        a @ b
    assert work_clock.work == 2 * 8 * 4 * 6 + clock.WARMUP_WORK
    first, second = work_clock.elapsed(), work_clock.elapsed()  # the second read (index BURST_AT) follows a burst
    assert first == second == work_clock.work  # nothing ran in between: a burst of nothing
    with work_clock:
        a @ b
    third = work_clock.elapsed()
    assert third - second == pytest.approx(2 * 8 * 4 * 6) and work_clock.reads == 3
    # the speed is not on the mode
    assert not any(isinstance(value, float) and value > 1e8 for value in vars(work_clock).values())


def test_work_clock_notes_the_score_tables_of_each_interval() -> None:
    """Between two readings the clock notes every square product, T x T over d (mm, bmm, the fused kernel), by table."""
    work_clock = clock.WorkClock()
    q, k = torch.randn(2, 5, 3), torch.randn(2, 5, 3)
    with work_clock:
        work_clock.elapsed()
        q[0] @ k[0].T  # one (5, 5) table over 3
        q @ k.transpose(1, 2)  # two more
        torch.randn(8, 4) @ torch.randn(4, 6)  # not square: no table
        work_clock.elapsed()
        clock._FLASH_CPU(q[None], k[None], k[None])  # the fused CPU kernel (its name depends on the torch): two heads
        work_clock.elapsed()
    assert work_clock.tables == [[[5, 3, 3]], [[5, 3, 2]]]


def test_backward_passes_counts_each_run_of_the_engine() -> None:
    """Each backward() is one pass of the autograd engine; a forward alone is none."""
    with backward.BackwardPasses() as passes:
        for _ in range(3):
            _graph()[1].backward()
        _loss(E)
    assert passes.count == 3 and _mode_stacks() == ([], [])


def test_backward_passes_sees_gradients_left_over_and_counts_optimiser_steps() -> None:
    """A pass into parameters that still hold gradients is stale; zero_grad before it is not; torch.autograd.grad
    accumulates nothing; every torch.optim step is counted and the last pass's leaves are the parameters trained."""
    model = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    with backward.BackwardPasses() as passes:
        for clear in (True, False, False, True):
            if clear:
                optimizer.zero_grad()
            model(x).square().sum().backward()
            optimizer.step()
        torch.autograd.grad(model(x).sum(), list(model.parameters()))
    assert (passes.count, passes.stale, passes.steps) == (5, 2, 4)
    assert {id(leaf) for leaf in passes.leaves} == {id(p) for p in model.parameters()}
    optimizer.step()
    assert passes.steps == 4  # the hook is gone after the block


def test_reading_the_mode_stack_marks_a_reach_and_datetime_reads_the_clock() -> None:
    """The clock's speed is not on the dispatch-mode stack, and reading that stack from student code is a reach;
    datetime.now() differences are virtual time."""
    module = types.ModuleType("exercises_q09_reach")
    exec(
        "import datetime\nfrom torch.utils._python_dispatch import _get_current_dispatch_mode_stack as stack\n"
        "def look():\n    return stack()\ndef stamp():\n    return datetime.datetime.now()",
        module.__dict__,
    )
    with clock.virtual_clock([module], speed=1e9) as work_clock:
        first = module.stamp()
        torch.randn(64, 64) @ torch.randn(64, 64)
        elapsed = (module.stamp() - first).total_seconds()
        assert not work_clock.reached
        module.look()
        assert work_clock.reached and work_clock.reads == 2
    # two randn, a matmul, their warm-ups; the second read follows a burst
    work = 2 * 64**3 + 2 * 64 * 64 + 2 * clock.WARMUP_WORK
    assert elapsed == pytest.approx((1 + clock.BURST_SIZE) * work / 1e9, abs=2e-6)
    assert datetime.datetime.now().year > 2000 and type(datetime.datetime.now()) is datetime.datetime


def test_the_clock_holds_in_threads_started_inside_the_block_and_a_thread_it_did_not_equip_is_a_reach() -> None:
    """A thread started inside the block reads the virtual clock and its work is counted, as in the block's own
    thread; a thread alive before the block that reads a clock during it (timed work the clock did not see) marks the
    clock reached."""
    hook, found = threading.getprofile(), {}

    def timed() -> None:
        start = time.perf_counter()
        torch.randn(64, 64) @ torch.randn(64, 64)
        found["seconds"] = time.perf_counter() - start

    with clock.virtual_clock([], speed=1e9) as work_clock:
        worker = threading.Thread(target=timed)
        worker.start()
        worker.join()
        assert work_clock.reads == 2 and not work_clock.reached and work_clock.work >= 2 * 64**3
    assert found["seconds"] == pytest.approx(work_clock.readings[1] - work_clock.readings[0]) and found["seconds"] > 0
    go, done = threading.Event(), threading.Event()

    def early() -> None:
        go.wait(5)
        time.perf_counter()
        done.set()

    worker = threading.Thread(target=early)
    worker.start()
    with clock.virtual_clock([], speed=1e9) as work_clock:
        go.set()
        done.wait(5)
    worker.join()
    assert work_clock.reached and threading.getprofile() is hook and time.perf_counter is REAL_PERF_COUNTER


def test_wall_times_takes_the_function_and_keeps_to_the_budget() -> None:
    def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
        return T * d * repeats * 1e-9

    assert clock.wall_times(time_attention, [2, 4, 8], d=16, budget=60.0) == {
        "Ts": [2, 4, 8],
        "seconds": pytest.approx([96e-9, 192e-9, 384e-9]),
    }
    assert clock.wall_times(time_attention, [2, 4, 8], d=16, budget=-1.0) == {"Ts": [], "seconds": []}


@pytest.mark.parametrize("name", ["forbidden", "clock", "backward", "forbid_table"])
def test_child_modules_import_only_the_standard_library_torch_and_each_other(name: str) -> None:
    """They run as `_child.*` in the zygote: no autograder, no reference, and no costly torch.utils.benchmark import;
    the table of forbidden work, which the grader reads before its child has imported torch, not even torch."""
    tree = ast.parse((CHILD / f"{name}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            continue  # relative: a sibling module
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        for imported in names:
            top = imported.split(".")[0]
            assert (top == "torch" and name != "forbid_table") or top in sys.stdlib_module_names, (
                f"{name}.py imports {imported}"
            )
            assert not imported.startswith("torch.utils.benchmark"), f"{name}.py imports {imported} (about 0.1 s)"


def test_the_watch_inside_the_clock_changes_no_figure() -> None:
    """The session nests ForbiddenWork inside virtual_clock: the work counted is the same, and forbidden work is
    seen."""
    module = _student("perf_counter min")
    alone = _figure(module, 64, 32, 5)
    torch.manual_seed(0)
    with clock.virtual_clock([module]) as work_clock, forbidden.ForbiddenWork(forbidden.LABELS) as watch:
        seconds = module.time_attention(64, d=32, repeats=5)
        F.scaled_dot_product_attention(Q, K, V)
    assert (seconds, work_clock.reads) == (alone[0], alone[2]) and watch.seen == [SDPA]
    assert _mode_stacks() == ([], []) and time.perf_counter is REAL_PERF_COUNTER


def _handed_over(start: object, depth: int = 6) -> list:
    """Every object reachable from start without an audited read (a frame, gi_frame, __code__, __defaults__): through
    closures, bound methods' __self__ and __func__, and partials; what a student's code holding start can reach."""
    seen, found, layer = set(), [], [start]
    for _ in range(depth):
        following = []
        for thing in layer:
            if id(thing) in seen:
                continue
            seen.add(id(thing))
            found.append(thing)
            following += [
                cell.cell_contents
                for cell in getattr(thing, "__closure__", None) or ()
                if cell.cell_contents is not None
            ]
            following += [getattr(thing, name) for name in ("__self__", "__func__", "func") if hasattr(thing, name)]
        layer = following
    return found


def _handed_out() -> list:
    """What the interpreter hands any code while a block runs: the profile hooks (threading.getprofile,
    sys.getprofile), the clocks and _thread's and threading's start functions."""
    import _thread

    starts = [
        getattr(owner, name)
        for owner, name in (
            (_thread, "start_new_thread"),
            (threading, "_start_new_thread"),
            # threading's binding: 3.13 renamed it
            (threading, "_start_joinable_thread"),
        )
        if hasattr(owner, name)
    ]
    return [threading.getprofile(), sys.getprofile(), time.perf_counter, *starts]


def test_what_the_interpreter_hands_out_reaches_neither_the_watch_nor_the_clock() -> None:
    """Inside a timed call with forbidden work watched, the profile hooks (threading.getprofile, sys.getprofile), the
    clocks and _thread's and threading's start functions hand no student who gets them the ForbiddenWork or the
    WorkClock (nor a module's globals through a bound method): each is a stand-in (hidden.keep) whose real function
    lives in a generator's frame. Before, threading.getprofile().__self__ was the watch and time.perf_counter's
    closure the clock."""
    module = _student("perf_counter min")
    with clock.virtual_clock([module]) as work_clock, forbidden.ForbiddenWork(forbidden.LABELS) as watch:
        reached = [thing for start in _handed_out() for thing in _handed_over(start)]
    assert not [
        thing
        for thing in reached
        if thing is watch or thing is work_clock or isinstance(thing, (forbidden.ForbiddenWork, clock.WorkClock))
    ]
    assert not [
        thing
        for thing in reached
        if isinstance(thing, types.MethodType)
        and thing.__self__ is not None
        and type(thing.__self__).__module__.startswith(("autograder", "_child"))
    ]


def test_what_the_interpreter_hands_out_has_no_closure_cell_nor_module_dict() -> None:
    """Each stand-in handed out inside a watched, timed call has no closure cell, no globals and no builtins: what it
    sends into is a constant of its code. Before, its closure cell held the list of what it sent into, which any code
    could rewrite with no audit event (threading.getprofile()'s: threads started afterwards ran without the modes,
    tamper_closure_cell_rewritten), and its globals were hidden.py's dict (`_keeper` could be rebound)."""
    module = _student("perf_counter min")
    with clock.virtual_clock([module]), forbidden.ForbiddenWork(forbidden.LABELS):
        handed = _handed_out()
        kept = [(thing.__closure__, thing.__globals__, thing.__builtins__) for thing in handed]
        cells = [thing.__name__ for thing in handed if thing.__closure__]
    assert kept and all(parts == (None, {"__builtins__": {}}, {}) for parts in kept), cells


SEALED_MODULE = '''
SECRET = "module"


class Base:
    def hello(self):
        return "base"


class Made(Base):
    def __init__(self, x):
        self.x = x

    def hello(self):
        return "made, " + super().hello() + ", " + SECRET

    @staticmethod
    def double(y):
        return 2 * y

    @classmethod
    def name(cls):
        return cls.__name__

    @property
    def value(self):
        return self.x
'''


def test_a_sealed_class_hands_out_no_module_dict_and_refuses_every_change() -> None:
    """seal.py: each function of a class the module defines is a forwarder with no globals, the class and its
    instances' __class__ cannot be changed (setattr, type.__setattr__, delattr), and the methods still work (super(),
    static and class methods, properties). Before, a method's __globals__ was the module's dict and setattr rebound
    it."""
    seal = _load("seal")
    module = types.ModuleType("made_for_seal")
    exec(SEALED_MODULE, module.__dict__)  # noqa: S102 - the module under test, written above
    assert seal.seal([module])
    made = module.Made(3)
    assert (made.hello(), module.Made.double(2), module.Made.name(), made.value) == ("made, base, module", 4, "Made", 3)
    for cls in (module.Base, module.Made):
        for value in vars(cls).values():
            for function in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                if isinstance(function, types.FunctionType):
                    assert "SECRET" not in function.__globals__ and not function.__closure__
    changes = [
        lambda: setattr(module.Made, "hello", lambda self: "rebound"),
        lambda: type.__setattr__(module.Made, "hello", lambda self: "rebound"),
        lambda: delattr(module.Made, "double"),
        lambda: setattr(module.Base, "extra", 1),
        lambda: setattr(made, "__class__", module.Base),
    ]
    for change in changes:
        with pytest.raises(TypeError):
            change()
    assert made.hello() == "made, base, module"
    assert seal.unwrap(vars(module.Made)["hello"]).__globals__ is module.__dict__  # what the sandbox's own code binds


SEALED_CHILD = r'''
import runpy, sys, types
boot = runpy.run_path(sys.argv[1])
boot["load_child"]()
seal = sys.modules["_child.seal"]
modules = [module for name, module in sys.modules.items() if name.startswith("_child.") or name == "_codec"]
exposed, mutable = [], []
for module in modules:
    for cls in seal.classes_of(module):
        if not cls.__flags__ & seal.IMMUTABLE:
            mutable.append(cls.__qualname__)
        for name, value in vars(cls).items():
            for function in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                if isinstance(function, types.FunctionType) and (set(function.__globals__) - {"__builtins__"}
                                                                 or function.__closure__):
                    exposed.append(cls.__qualname__ + "." + name)
print(len(modules), sorted(mutable), sorted(exposed))
'''


def test_every_class_of_the_child_is_sealed_before_student_code_runs() -> None:
    """boot.py's load_child, as every backend's child runs it: each class of the child's side and of the codec is
    immutable and none of its functions hands out globals or a closure (before: ForbiddenWork._note was rebound by
    setattr, and a handler's __globals__ was the watch's module dict)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", SEALED_CHILD, str(ROOT / "autograder" / "sandbox" / "boot.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split(" ", 1)[1].strip() == "[] []", done.stdout
    assert int(done.stdout.split(" ", 1)[0]) >= 10, done.stdout


PRIVATE_BUILTINS = r'''
import builtins, runpy, sys, types
boot = runpy.run_path(sys.argv[1])
seal = boot["load_child"]().seal
modules = {name: module for name, module in sys.modules.items() if name.startswith("_child.") or name == "_codec"}
common = vars(builtins)
shared = [name for name, module in modules.items() if vars(module).get("__builtins__", common) is common]
folder = seal.FORWARDER_FILE.rpartition("child")[0]  # autograder/sandbox/: the child's side and the codec
for name, module in modules.items():
    for value in list(vars(module).values()):
        methods = vars(value).values() if isinstance(value, type) else ()
        inner = [seal.unwrap(getattr(v, "__func__", v)) for v in methods]
        for function in [value, *inner]:
            if isinstance(function, types.FunctionType) and function.__code__.co_filename.startswith(folder):
                if function.__builtins__ is common:
                    shared.append(name + "." + function.__qualname__)
print(len(modules), sorted(set(shared)))
'''


def test_every_function_of_the_child_looks_builtins_up_in_a_private_copy() -> None:
    """boot.py's load_child: each module of the child's side and the codec keeps a private copy of the builtins, taken
    before any student code, and each of its functions (and its classes' methods) looks builtins up there, not in the
    builtins module a student's `builtins.any = ...` changes (before: every one looked them up in the shared one)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", PRIVATE_BUILTINS, str(ROOT / "autograder" / "sandbox" / "boot.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split(" ", 1)[1].strip() == "[]", done.stdout
    assert int(done.stdout.split(" ", 1)[0]) >= 10, done.stdout


def test_the_import_refusal_hands_out_no_list_of_refusals() -> None:
    """RefusedImport, which stands in sys.meta_path where any code reaches it, records a refused import but hands out
    nothing that reaches the list of refusals (before: its `attempts` was that list, which an answer cleared after a
    refused action, tamper_refusals_cleared)."""
    guard = _load("guard")
    attempts: list[str] = []
    finder = guard.RefusedImport(attempts)
    with pytest.raises(ImportError):
        finder.find_spec("autograder.engine")
    assert finder.find_spec("torch") is None
    assert attempts == ["imports `autograder.engine`"]
    reached = [thing for value in vars(finder).values() for thing in _handed_over(value)]
    assert not [thing for thing in reached if thing is attempts or getattr(thing, "__self__", None) is attempts]
