"""Instructor side of the recordings: the suites run on the solutions with the oracle and the banks watched.

Never shipped: `release` runs it in the instructor's kit and ships only its output, autograder/recordings/. Every call
of a `reference` function made by a check is kept with its result; every call of the student's code (the solutions
here) gets the bank's right answer and each known mistake's result on the same arguments. Shrinking needs smaller
inputs too, so each drawn check is also run on the inputs its shrinking tries: the descent that always fails, the one
of float32 work (failing on float64 inputs only), a few where a coin decides, and the descent a student with each
known mistake of the bank would follow. A hypothesis check gets a grid of the smallest values of its strategies.
"""
import dataclasses
import importlib
import itertools
import json
import pkgutil
from typing import Callable

import pytest
import torch

from ..course.manifest import Course
from ..engine import mistakes, proxy
from ..engine.inputs import shrink
from ..engine.mistakes import _far, _quietly, replayed
from .canon import Blobs, Results, Uncanonical, digest, dump, encode
from .recorded import INDEX

COIN_MODELS = 4  # shrinking paths of students failing where a coin says so, recorded for every drawn check
ROOM = 20  # times each question's time limit its child gets while recording: the ladders run its checks many times



class RecordingError(RuntimeError):
    """The suites could not all be recorded: the release stops rather than ship a partial recording."""


class Recorder:
    """What the suites' run gave: per question, the oracle's results and the student calls the banks replay."""

    def __init__(self) -> None:
        self.question: int | None = None  # the question whose check runs, None while nothing is recorded
        self.oracle: dict[int, dict[str, dict[str, object]]] = {}
        self.blobs: dict[int, Blobs] = {}
        self.calls: dict[int, dict[str, tuple[str, tuple, dict]]] = {}
        self.seen: list[tuple[str, tuple, dict]] = []  # the student calls of the body running now
        self.depth = 0  # oracle calls under way: only the outermost, the suite's own, is recorded

    def keep(self, name: str, args: tuple, kwargs: dict, result: object) -> None:
        """Record an oracle call of the current question."""
        if self.question is None:
            return
        try:
            key = digest(args, kwargs)
        except Uncanonical:
            return
        table = self.oracle.setdefault(self.question, {}).setdefault(name, Results())
        if key not in table:
            try:
                table[key] = encode(result, self.blobs.setdefault(self.question, Blobs()))
            except Uncanonical:
                pass

    def watched(self, name: str, function: Callable[..., object]) -> Callable[..., object]:
        """function, its calls recorded under name."""
        def watched(*args: object, **kwargs: object) -> object:
            self.depth += 1
            try:
                result = function(*args, **kwargs)
            except Exception as error:
                if self.depth == 1:
                    self.keep(name, args, kwargs, error)
                raise
            finally:
                self.depth -= 1
            if self.depth == 0:
                self.keep(name, args, kwargs, result)
            return result

        return watched

    def student_call(self, call: proxy.Call) -> None:
        """Keep a call of the student's code for the bank."""
        replay = replayed(call) if self.question is not None else None
        if replay is None:
            return
        try:
            key = digest(replay[1], replay[2])
        except Uncanonical:
            return
        self.calls.setdefault(self.question, {}).setdefault(key, replay)
        self.seen.append(replay)


class _Latest(list):
    """proxy._latest that also hands every call to the recorder."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __setitem__(self, index: object, value: object) -> None:
        super().__setitem__(index, value)
        for call in value if isinstance(index, slice) else [value]:
            self.recorder.student_call(call)


class Ladders:
    """pytest plugin: sets the question recorded, and runs each drawn check again on the inputs its shrinking tries."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.error: RecordingError | None = None  # the first check that could not be recorded whole

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """The question of the check about to run."""
        self.recorder.question = int(item.module.__name__.split("_")[1][1:])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> object:
        """After the check, its smaller inputs."""
        result = yield
        arguments = {name: item.funcargs[name] for name in item._fixtureinfo.argnames if name in item.funcargs}
        marker = item.get_closest_marker("drawn")
        try:
            if marker is not None:
                self._drawn(item, arguments, *marker.args)
            elif hasattr(item.obj, "hypothesis"):
                self._grid(item, arguments)
        except RecordingError as error:
            self.error = self.error or RecordingError(f"{item.nodeid}: {error}")
        return result

    def _run(self, body: Callable[..., object], arguments: dict) -> list[tuple[str, tuple, dict]]:
        """The student calls of body(**arguments); RecordingError when the solutions fail it (a recording made of a
        part of the calls, such as a child stopped by a loaded machine, would differ from one release to the
        next)."""
        self.recorder.seen = []
        try:
            body(**arguments)
        except Exception as error:
            raise RecordingError(f"the solutions fail {getattr(body, '__name__', 'a check')} on a smaller input: "
                                 f"{error}") from error
        return self.recorder.seen

    def _drawn(self, item: pytest.Item, arguments: dict, make_one: Callable, choices: tuple, order: Callable) -> None:
        names = list(item.callspec.params)
        runs: dict[str, list] = {}

        def calls(values: dict) -> list:
            try:
                key = digest((), values)
            except Uncanonical:
                return []
            if key not in runs:
                runs[key] = self._run(item.obj, {**arguments, **dict(zip(names, values.values()))})
            return runs[key]

        def always(values: dict) -> bool:
            calls(values)
            return True

        def in_float64(values: dict) -> bool:  # a student who works in float32 fails on float64 inputs only
            calls(values)
            return any(isinstance(value, torch.Tensor) and value.dtype == torch.float64 for value in values.values())

        shrink(make_one, choices, always, order)
        shrink(make_one, choices, in_float64, order)
        for model in range(COIN_MODELS):  # students who fail on about half the inputs: the paths beside the others

            def coin(values: dict, model: int = model) -> bool:
                calls(values)
                try:
                    return int(digest((model,), values), 16) % 2 == 0
                except Uncanonical:
                    return False

            shrink(make_one, choices, coin, order)
        number = self.recorder.question
        found = mistakes.bank(number)
        for mistake in found.mistakes if found else ():

            def fails(values: dict, mistake: mistakes.Mistake = mistake) -> bool:
                # the bank's own use of the oracle is not the suites'
                made, self.recorder.question = calls(values), None
                try:
                    return any(_differs(found, mistake, call) for call in made)
                finally:
                    self.recorder.question = number

            shrink(make_one, choices, fails, order)

    def _grid(self, item: pytest.Item, arguments: dict) -> None:
        from hypothesis import find

        strategies = item.obj.hypothesis._given_kwargs
        smallest = {name: find(strategy, lambda value: True) for name, strategy in strategies.items()}
        values = {
            name: [smallest[name], find(strategy, lambda value, low=smallest[name]: value != low)]
            for name, strategy in strategies.items()
        }
        for combination in itertools.product(*values.values()):
            self._run(item.obj.hypothesis.inner_test, {**arguments, **dict(zip(values, combination))})


def _differs(found: mistakes.Bank, mistake: mistakes.Mistake, call: tuple[str, tuple, dict]) -> bool:
    """True when the mistake's result on the call is far from the right one: a student with it fails there."""
    name, args, kwargs = call
    if name not in mistake.variants or name not in found.correct:
        return False
    try:
        return _far(_quietly(mistake.variants[name], args, kwargs), _quietly(found.correct[name], args, kwargs))
    except Exception:  # noqa: BLE001 - a variant that does not apply here
        return False


def _result(function: Callable[..., object], args: tuple, kwargs: dict) -> object:
    """function's result on the call, or the exception it raised."""
    try:
        return _quietly(function, args, kwargs)
    except Exception as error:  # noqa: BLE001 - recorded as raised
        return error


def _bank_table(recorder: Recorder, number: int) -> dict | None:
    """Question number's bank as recorded: every function's right and wrong results on the student calls seen."""
    found = mistakes.bank(number)
    if found is None:
        return None
    blobs = recorder.blobs.setdefault(number, Blobs())
    calls = recorder.calls.get(number, {})

    def results(functions: dict[str, Callable[..., object]]) -> dict[str, dict[str, object]]:
        tables: dict[str, dict[str, object]] = {name: Results() for name in sorted(functions)}
        for key, (name, args, kwargs) in calls.items():
            if name in functions:
                try:
                    tables[name][key] = encode(_result(functions[name], args, kwargs), blobs)
                except Uncanonical:
                    pass
        return tables

    return {
        "correct": results(found.correct),
        "mistakes": [
            {
                "name": m.name,
                "explanation": m.explanation,
                "hint": m.hint,
                "hint_of": m.hint_of,
                "variants": results(m.variants),
            }
            for m in found.mistakes
        ],
    }


def _record_plots(course: Course, numbers: list[int], recorder: Recorder, sandbox: object) -> None:
    """The oracle's side of each `plot N` picture, drawn from the solutions (question 9's slope is fitted to timings
    measured on the student's machine: it cannot be recorded, and `plot 9` says so on the student build)."""
    from ..plots.make import GATHER, gather

    for number in sorted(set(GATHER) & set(numbers) - {9}):
        recorder.question = number
        gather(course, course.root / "solutions", number, sandbox)


def record(course: Course, numbers: list[int]) -> dict[str, bytes]:
    """Path (under autograder/recordings/) -> bytes of every recording file, from the suites run on the solutions."""
    import reference  # the instructor's oracle: here only, never in the student build

    from ..engine.plugin import EachSubmission, KitPlugin
    from ..engine.run import PYTEST_ARGS, _quiet_pytest
    from ..engine.suite_run import Submission, keep_hypothesis_in, suite_file
    from ..sandbox import start_sandbox

    torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
    recorder = Recorder()
    modules = {
        info.name: importlib.import_module(f"reference.{info.name}")
        for info in pkgutil.iter_modules(reference.__path__)
    }
    saved = {name: dict(vars(module)) for name, module in modules.items()}
    functions = {
        name: sorted(
            f
            for f, value in vars(module).items()
            if callable(value) and getattr(value, "__module__", "") == module.__name__ and not f.startswith("_")
        )
        for name, module in modules.items()
    }
    latest = proxy._latest
    sandbox = start_sandbox()
    try:
        for name, module in modules.items():
            for function in functions[name]:
                setattr(module, function, recorder.watched(f"reference.{name}.{function}", getattr(module, function)))
        proxy._latest = _Latest(recorder)
        roomy = dataclasses.replace(
            course, questions=tuple(dataclasses.replace(q, time_limit=q.time_limit * ROOM) for q in course.questions)
        )
        kit = KitPlugin(roomy, course.root, sandbox, notes=False, first_failure_only=True)
        submission = Submission(course.root / "solutions")
        each = EachSubmission(kit, numbers, [submission])
        keep_hypothesis_in(sandbox.folder)
        suites = [str(suite_file(course, n)) for n in numbers if suite_file(course, n).exists()]
        ladders = Ladders(recorder)
        with _quiet_pytest() as said:
            pytest.main([*PYTEST_ARGS, *suites], plugins=[kit, each, ladders])
        if ladders.error is not None:
            raise ladders.error
        _record_plots(roomy, numbers, recorder, sandbox)
        recorder.question = None
        if submission.report is None or submission.failed or submission.report.score != submission.report.max_score:
            raise RecordingError(
                f"the solutions do not pass their suites, so nothing can be "
                f"recorded:\n{said.getvalue()[-2000:]}{submission.failed}"
            )
        files, index = {}, {"modules": functions, "oracle": {}, "banks": []}
        for number in numbers:
            table = {"oracle": recorder.oracle.get(number, {}), "bank": _bank_table(recorder, number)}
            if table["bank"] is not None:
                index["banks"].append(f"q{number:02d}")
            for name in table["oracle"]:
                index["oracle"].setdefault(name, []).append(number)
            files[f"q{number:02d}.rec"] = dump(table, recorder.blobs.get(number, Blobs()))
        files[INDEX] = json.dumps(index, sort_keys=True, indent=1).encode() + b"\n"
        return files
    finally:
        proxy._latest = latest
        for name, module in modules.items():
            for function in functions[name]:
                setattr(module, function, saved[name][function])
        sandbox.close()


__all__ = ["record"]
