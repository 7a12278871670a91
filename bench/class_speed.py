"""Seconds per submission of `python -m autograder grade DIR`, its floor and overhead, and the ratio to `nbgrader
autograde`.

    python bench/class_speed.py [--students 100] [--notebooks 20] [--jobs N] [--keep DIR]

1. Class. Generates --students folder submissions (exercises/ packages), interleaved: 40 % correct (the solutions),
   34 % partly wrong (the solutions with one module replaced by a file of tests/corpus/wrong), 10 % stubs
   (exercises/), 10 % half done (questions 1-5 solved, 6-10 stubs), 6 % hostile submissions from tests/hostile
   replacing question 1: an endless loop (loop_forever), a crash (segfault) and a memory hog (memory_hog). The course
   is the kit's course.yaml with question 1's time limit cut to --limit seconds (default 3), in a temporary copy of
   the kit's folder, so that an endless loop costs seconds, not its real time limit.
2. grade DIR. Runs `python -m autograder grade DIR --out OUT` once (default --jobs: the core count) from that
   folder and times it, start to exit, torch imports included: seconds per submission = wall time / students.
3. Floor: the time the students' own functions take when called directly with the suites' inputs, no grader. Every
   distinct module of the class is graded once, on its own question, with the other modules correct, while every
   request the grader sends to the sandboxed child (the function called, its arguments, which are the suites'
   inputs) is recorded. A plain process (torch imported once, with the modules of the suites' preload markers; one
   thread; the sandbox's memory limit; no grader, no sandbox, no pytest) then imports each module and makes the
   same calls in the same order, timing only the import of the student's modules and the calls themselves. A call
   the sandbox stopped (an endless loop, a crash) is not repeated: the time the grader let it run counts instead. A
   module several submissions hold is replayed up to 5 times and the median counts: this machine's CPU time for the
   same work varies by half from run to run. A submission's floor is the sum over its ten questions; the class's
   floor is one torch import plus the sum over students divided by the jobs (a plain program using the same cores),
   per submission. Overhead = seconds per submission - floor.
4. nbgrader. --notebooks of the same submissions (drawn in proportion to the kinds), as notebooks of the nbgrader
   assignment built from the same course, graded by `nbgrader autograde` (one kernel per notebook, as nbgrader
   works): seconds per submission, and the ratio to grade DIR's seconds per submission. The same notebooks are
   also graded by `grade DIR` (as notebook entries), whose scores must equal the gradebook's.

The machine may be shared with other work, which slows grade DIR (it keeps the cores busy) more than nbgrader (which
mostly waits for its kernels). So the figures are also given from CPU time (getrusage of the whole process tree; for
the floor, the time of the thread that runs the student's code), as an idle machine with the same cores would give them.
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))
sys.path.insert(0, str(KIT / "bench"))

ENV = {**os.environ, "PYTHONPATH": str(KIT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "PYTHONWARNINGS": "ignore"}
PATTERN = ["correct"] * 20 + ["wrong"] * 17 + ["stubs"] * 5 + ["half"] * 5 + ["loop_forever", "segfault", "memory_hog"]
FAULT_MODULE = "q01_causal_mask.py"
MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION.*\n", re.MULTILINE)  # a student's file has no solution markers
# a piece several submissions hold is replayed up to this many times, and its median counts (the CPU is noisy)
REPEATS = 5


# -- the class --------------------------------------------------------------------------------------------------


def _texts(folder: Path) -> dict[str, str]:
    return {p.name: MARKERS.sub("", p.read_text()) for p in sorted(folder.glob("q[0-9][0-9]_*.py"))}


def make_class(students: int) -> list[dict]:
    """The submissions: name, kind, and {module file: variant}, a variant being a key of variants()."""
    solutions = _texts(KIT / "solutions")
    wrong = sorted((KIT / "tests" / "corpus" / "wrong").glob("q[0-9][0-9]_*.py"))
    wrong = [wrong[i] for i in range(0, len(wrong), max(1, len(wrong) // 34))]  # a spread of the corpus, every question
    shuffled = random.Random(0)
    kinds = [kind for _ in range(students // len(PATTERN) + 1) for kind in shuffled.sample(PATTERN, len(PATTERN))][
        :students
    ]
    submissions, wrong_index = [], 0
    for index, kind in enumerate(kinds):
        files = {name: f"correct:{name}" for name in solutions}
        if kind == "wrong":
            path = wrong[wrong_index % len(wrong)]
            wrong_index += 1
            name = next(n for n in solutions if n.startswith(path.name[:3]))
            files[name] = f"wrong:{path.name}"
        elif kind in ("stubs", "half"):
            for name in solutions:
                if kind == "stubs" or int(name[1:3]) > 5:
                    files[name] = f"stubs:{name}"
        elif kind != "correct":
            files[FAULT_MODULE] = f"fault:{kind}"
        submissions.append({"name": f"s{index:03d}", "kind": kind, "files": files})
    return submissions


def variants() -> dict[str, str]:
    """Every module text a submission can hold, by variant key."""
    found = {f"correct:{n}": t for n, t in _texts(KIT / "solutions").items()}
    found |= {f"stubs:{n}": t for n, t in _texts(KIT / "exercises").items()}
    found |= {f"wrong:{p.name}": p.read_text() for p in (KIT / "tests" / "corpus" / "wrong").glob("q[0-9][0-9]_*.py")}
    found |= {f"fault:{name}": (KIT / "tests" / "hostile" / f"{name}.py").read_text() for name in PATTERN[-3:]}
    return found


def write_package(folder: Path, files: dict[str, str], texts: dict[str, str]) -> Path:
    """An exercises/ package in folder with the variants' texts."""
    package = folder / "exercises"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""My answers."""\n')
    for name, variant in files.items():
        (package / name).write_text(texts[variant])
    return package


def make_kit(base: Path, limit: float) -> Path:
    """A kit folder for the bench: course.yaml with question 1 limited to limit seconds, and solutions/ (for
    nbgrader)."""
    kit = base / "kit"
    kit.mkdir()
    manifest = (KIT / "course.yaml").read_text()
    manifest = re.sub(r"(slug: causal_mask\n(?:.*\n)*?    time_limit: )\d+", rf"\g<1>{limit:g}", manifest, count=1)
    (kit / "course.yaml").write_text(manifest)
    shutil.copytree(KIT / "solutions", kit / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    return kit


# -- grade DIR --------------------------------------------------------------------------------------------------


def grade_command() -> list[str]:
    """`python -m autograder grade` once the CLI has it, else the module's own entry point (same arguments)."""
    shown = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--help"],
        cwd=KIT,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    return (
        [sys.executable, "-m", "autograder", "grade"]
        if "--out" in shown.stdout
        else [sys.executable, "-m", "autograder.classroom.batch"]
    )


def timed(
    command: list[str], cwd: Path, ok: tuple[int, ...] = (0,)
) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds of the whole process tree, the finished process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done


def csv_scores(out: Path) -> dict[str, list[float]]:
    """student -> question scores, from grades.csv."""
    header, *lines = [line.split(",") for line in (out / "grades.csv").read_text().splitlines()]
    questions = [index for index, name in enumerate(header) if re.fullmatch(r"q\d+", name)]
    return {line[0]: [float(line[index]) for index in questions] for line in lines}


# -- the floor: record the grader's requests, replay them without the grader -----------------------------------


def record(kit: Path, pieces: dict[tuple[int, str], Path], uses: dict[tuple[int, str], int], scratch: Path) -> Path:
    """Grade each (question, variant) package on its question, recording every request sent to the child; the file."""
    import torch

    from autograder.course.manifest import load_course
    from autograder.engine.run import run_suites
    from autograder.sandbox.linux import parent

    course = load_course(kit)
    sessions: list[dict] = []
    original_open, original_first, original_ask = (
        parent.LinuxSandbox.open,
        parent.LinuxChild.first,
        parent.LinuxChild.ask,
    )

    def open_(self, package, module, *args, **kwargs):  # the engine's own arguments, passed on as they are
        child = original_open(self, package, module, *args, **kwargs)
        child.recording = {"module": module, "events": []}
        sessions[-1]["sessions"].append(child.recording)
        return child

    def first(self, *args, **kwargs):
        spent = self.spent
        try:
            answer = original_first(self, *args, **kwargs)
        except parent.ChildStopped as stopped:
            self.recording["events"].append({"import": True, "stopped": stopped.status, "spent": self.spent - spent})
            raise
        self.recording["events"].append({"import": True, "ok": answer["ok"]})
        return answer

    def ask(self, request, *args, **kwargs):
        spent = self.spent
        try:
            answer = original_ask(self, request, *args, **kwargs)
        except parent.ChildStopped as stopped:
            self.recording["events"].append(
                {"request": request, "stopped": stopped.status, "spent": self.spent - spent}
            )
            raise
        self.recording["events"].append({"request": request, "value": answer.get("value"), "ok": answer["ok"]})
        return answer

    parent.LinuxSandbox.open, parent.LinuxChild.first, parent.LinuxChild.ask = open_, first, ask
    sandbox = parent.LinuxSandbox()  # the class bench measures the instructor's server: the Linux backend
    torch.set_num_threads(1)
    try:
        for (number, variant), package in pieces.items():
            sessions.append(
                {
                    "question": number,
                    "variant": variant,
                    "package": str(package),
                    "uses": uses[number, variant],
                    "sessions": [],
                }
            )
            run_suites(course, sandbox, package, [number])
    finally:
        sandbox.close()
        parent.LinuxSandbox.open, parent.LinuxChild.first, parent.LinuxChild.ask = (
            original_open,
            original_first,
            original_ask,
        )
    path = scratch / "recorded.pt"
    torch.save({"preload": preloaded(course), "sessions": sessions}, path)
    return path


def preloaded(course: object) -> list[str]:
    """The modules of the suites' preload markers: torch imports them lazily and slowly (torch._dynamo, on an
    optimizer's first step); the grader's sandbox imports them once, and so does the plain program of the floor."""
    import importlib

    from autograder.engine.run import suite_file

    marks = [
        getattr(importlib.import_module(f"autograder.suites.{suite_file(course, n).stem}"), "pytestmark", [])
        for n in course.numbers
    ]
    # one mark, or a list of them
    marks = [mark for found in marks for mark in (found if isinstance(found, list) else [found])]
    return sorted({name for mark in marks if mark.name == "preload" for name in mark.args})


def replay(recorded: Path, answer: Path) -> None:
    """In a plain process: the recorded calls made directly on the students' modules, timed; {key: [wall, CPU]} to
    answer."""
    import importlib
    import importlib.util

    start, cpu = time.perf_counter(), time.process_time()
    import torch

    found = torch.load(recorded, weights_only=False)
    for name in found["preload"]:
        importlib.import_module(name)
    imported = [time.perf_counter() - start, time.process_time() - cpu]
    from autograder.sandbox.child.helpers import Counted
    from autograder.sandbox.limits import MEMORY_BYTES  # for the floor's calls: the memory hog must fail the same way

    torch.set_num_threads(1)
    sessions = found["sessions"]
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_AS)[1]))
    seconds: dict[str, list[float]] = {}
    for piece in sessions:
        runs = [_replay_piece(piece, Counted) for _ in range(min(piece["uses"], REPEATS))]
        seconds[f"{piece['question']}|{piece['variant']}"] = [statistics.median(run[i] for run in runs) for i in (0, 1)]
    answer.write_text(json.dumps({"torch_import": imported, "seconds": seconds}))


def _replay_piece(piece: dict, counted: type) -> list[float]:
    """One replay of a piece's recorded sessions in this process: [wall, CPU] seconds of the student's own code."""
    import importlib
    import importlib.util

    import torch

    total = [0.0, 0.0]  # wall, CPU
    for session in piece["sessions"]:
        for name in [n for n in sys.modules if n == "exercises" or n.startswith("exercises.")]:
            del sys.modules[name]
        package = piece["package"]
        spec = importlib.util.spec_from_file_location(
            "exercises", os.path.join(package, "__init__.py"), submodule_search_locations=[package]
        )
        sys.modules["exercises"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["exercises"])
        torch.manual_seed(0)
        objects: dict[int, object] = {}
        module = None
        for event in session["events"]:
            if "stopped" in event:  # the sandbox stopped it: the time it was let run is the floor (it ran on a CPU)
                total = [total[0] + event["spent"], total[1] + event["spent"]]
                break
            if event.get("import"):
                begin = (time.perf_counter(), time.thread_time())
                try:
                    module = importlib.import_module("exercises." + session["module"])
                except BaseException:  # noqa: BLE001, B036 - a student's module may raise anything
                    module = None
                took = (time.perf_counter() - begin[0], time.thread_time() - begin[1])
            else:
                took = _replay_one(event, module, objects, counted)
            total = [total[0] + took[0], total[1] + took[1]]
    return total


def _replay_one(event: dict, module: object, objects: dict, counted: type) -> tuple[float, float]:
    """Make one recorded request directly; (wall, CPU) seconds the student's code took (0 for the grader's own
    requests)."""
    import torch

    request = event["request"]
    op = request["op"]

    def decode(value: object) -> object:
        if isinstance(value, dict):
            if "__handle__" in value:
                return objects.get(value["__handle__"])
            if "__generator__" in value:
                return torch.Generator().manual_seed(value["__generator__"])
            return {key: decode(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(decode(item) for item in value)
        return value

    def target() -> object:
        return (
            objects.get(request["target"])
            if isinstance(request["target"], int)
            else getattr(module, request["target"], None)
        )

    took, value = (0.0, 0.0), None
    try:
        if op == "call":
            function, args, kwargs = target(), decode(request["args"]), decode(request["kwargs"])
            with torch.set_grad_enabled(request.get("grad", torch.is_grad_enabled())):
                begin = (time.perf_counter(), time.thread_time())
                try:
                    value = function(*args, **kwargs)
                finally:
                    took = (time.perf_counter() - begin[0], time.thread_time() - begin[1])
        elif op == "getattr":
            begin = (time.perf_counter(), time.thread_time())
            value = getattr(target(), request["name"])
            took = (time.perf_counter() - begin[0], time.thread_time() - begin[1])
        elif op == "helper":
            value = counted(request["name"])
        elif op == "load":
            with torch.no_grad():
                model = target()
                for name, tensor in decode(request["state"]).items():
                    try:
                        model.get_parameter(name).copy_(tensor)
                    except AttributeError:
                        model.get_buffer(name).copy_(tensor)
    except BaseException:  # noqa: BLE001, B036 - the student's exception, as in the sandbox
        return took
    _keep(event.get("value"), value, objects)
    return took


def _keep(recorded: object, value: object, objects: dict) -> None:
    """Store the objects that came back as handles under the child's handle numbers."""
    if isinstance(recorded, dict) and "__handle__" in recorded:
        objects[recorded["__handle__"]] = value
    elif isinstance(recorded, (list, tuple)) and isinstance(value, (list, tuple)):
        for one, other in zip(recorded, value):
            _keep(one, other, objects)
    elif isinstance(recorded, dict) and isinstance(value, dict):
        for key, one in recorded.items():
            if key in value:
                _keep(one, value[key], objects)


def floor(
    kit: Path, submissions: list[dict], texts: dict[str, str], scratch: Path
) -> tuple[dict[str, list[float]], list[float]]:
    """({question|variant: [wall, CPU] seconds}, [wall, CPU] of the torch import) of the students' own code, as the
    docstring says."""
    from autograder.course.manifest import load_course

    course = load_course(kit)
    by_file = {Path(q.file).name: q.number for q in course.questions}
    correct = {name: f"correct:{name}" for name in by_file}
    pieces: dict[tuple[int, str], Path] = {}
    uses: dict[tuple[int, str], int] = {}  # how many submissions hold the piece
    for submission in submissions:
        for name, variant in submission["files"].items():
            key = (by_file[name], variant)
            uses[key] = uses.get(key, 0) + 1
            if key not in pieces:
                pieces[key] = write_package(scratch / f"piece{len(pieces)}", correct | {name: variant}, texts)
    recorded = record(kit, pieces, uses, scratch)
    answer = scratch / "floor.json"
    subprocess.run([sys.executable, __file__, "--replay", str(recorded), str(answer)], cwd=kit, env=ENV, check=True)
    found = json.loads(answer.read_text())
    return found["seconds"], found["torch_import"]


# -- nbgrader -----------------------------------------------------------------------------------------------------


def nbgrader_side(
    kit: Path, base: Path, chosen: list[dict], texts: dict[str, str]
) -> tuple[float, dict[str, list[float]], Path]:
    """Time `nbgrader autograde` on the chosen submissions as notebooks: (wall seconds, gradebook scores, notebooks
    folder)."""
    import nbformat

    from autograder.course.manifest import load_course
    from autograder.nbgrader.course import drop_relative_imports
    from autograder.nbgrader.package import answer_id, graded_id, marker

    course = load_course(kit)
    course_dir = base / "course"
    timed([sys.executable, "-m", "autograder", "nbgrader", str(course_dir), "--assignment", "attention"], kit)
    timed([sys.executable, "-m", "nbgrader", "generate_assignment", "attention"], course_dir)
    release = nbformat.read(str(course_dir / "release" / "attention" / "attention.ipynb"), as_version=4)
    notebooks = base / "notebooks"
    notebooks.mkdir()
    for submission in chosen:
        notebook = nbformat.from_dict(json.loads(json.dumps(release)))
        for cell in notebook.cells:
            for question in course.questions:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id(question.number):
                    text = texts[submission["files"][Path(question.file).name]]
                    try:
                        text = drop_relative_imports(text)
                    except SyntaxError:
                        pass
                    cell.source = marker(question) + "\n" + text
        folder = course_dir / "submitted" / submission["name"] / "attention"
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / "attention.ipynb"))
        nbformat.write(notebook, str(notebooks / f"{submission['name']}.ipynb"))
    wall, _, _ = timed([sys.executable, "-m", "nbgrader", "autograde", "attention"], course_dir, ok=(0, 1))
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        scores = {
            s.id: [gb.find_grade(graded_id(n), "attention", "attention", s.id).score for n in course.numbers]
            for s in gb.students
        }
    return wall, scores, notebooks


def main() -> int:
    """Build the class, time grade DIR, measure the floor, time nbgrader, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument(
        "--notebooks", type=int, default=20, help="submissions graded by nbgrader autograde too (0: skip)"
    )
    parser.add_argument("--jobs", type=int, default=None, help="passed to grade DIR (default: its own, the core count)")
    parser.add_argument(
        "--limit", type=float, default=3.0, help="time limit of question 1, where the hostile submissions are (s)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="build everything here and keep it")
    parser.add_argument("--replay", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay:
        replay(*args.replay)
        return 0
    base = args.keep or Path(tempfile.mkdtemp(prefix="class-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    jobs = args.jobs or os.cpu_count() or 1
    try:
        return _bench(args, base, jobs)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


def _bench(args: argparse.Namespace, base: Path, jobs: int) -> int:
    kit = make_kit(base, args.limit)
    texts = variants()
    submissions = make_class(args.students)
    folder = base / "class"
    for submission in submissions:
        write_package(folder / submission["name"], submission["files"], texts)
    command = grade_command()
    load = os.getloadavg()[0]
    extra = ["--jobs", str(args.jobs)] if args.jobs else []
    wall, cpu, done = timed([*command, str(folder), "--out", str(base / "out"), *extra], kit)
    graded = csv_scores(base / "out")
    assert len(graded) == args.students, done.stdout[-2000:]
    per = wall / args.students
    print(
        f"grade DIR: {args.students} submissions in {wall:.1f} s wall, {cpu:.1f} s CPU, jobs {jobs}, load average "
        f"{load:.1f} at the start",
        flush=True,
    )

    seconds, torch_import = floor(kit, submissions, texts, base / "floor")
    from autograder.course.manifest import load_course

    by_file = {Path(q.file).name: q.number for q in load_course(kit).questions}
    floors = [
        [sum(seconds[f"{by_file[name]}|{variant}"][i] for name, variant in s["files"].items()) for s in submissions]
        for i in (0, 1)
    ]
    kinds = sorted({s["kind"] for s in submissions})
    per_kind = {kind: sum(s["kind"] == kind for s in submissions) for kind in kinds}
    print(
        "floor by kind (seconds of the students' own code per submission, wall/CPU): "
        + ", ".join(
            f"{kind} "
            + "/".join(
                f"{sum(f for f, s in zip(floors[i], submissions) if s['kind'] == kind) / per_kind[kind]:.2f}"
                for i in (0, 1)
            )
            for kind in kinds
        ),
        flush=True,
    )
    n = args.students
    # a plain program on the same cores: one torch import per process
    floor_wall = (torch_import[0] + sum(floors[0]) / jobs) / n
    floor_cpu = (jobs * torch_import[1] + sum(floors[1])) / n / jobs
    rows = [
        ("as measured (wall clock; the machine is shared)", ""),
        ("  grade DIR, seconds per submission", f"{per:.3f}"),
        (f"  floor, seconds per submission (torch import + students' code / {jobs})", f"{floor_wall:.3f}"),
        ("  overhead per submission (target <= 0.3)", f"{per - floor_wall:.3f}"),
        (f"from CPU time (an idle machine with {jobs} cores)", ""),
        (f"  grade DIR, CPU seconds per submission / {jobs}", f"{cpu / n / jobs:.3f}"),
        (f"  floor, CPU seconds per submission / {jobs}", f"{floor_cpu:.3f}"),
        ("  overhead per submission (target <= 0.3)", f"{cpu / n / jobs - floor_cpu:.3f}"),
    ]
    status = 0
    if args.notebooks:
        chosen = _proportional(submissions, args.notebooks)
        nb_wall, gradebook, notebooks = nbgrader_side(kit, base, chosen, texts)
        nb_per = nb_wall / len(chosen)
        kit_wall, _, _ = timed([*command, str(notebooks), "--out", str(base / "out-notebooks"), *extra], kit)
        from_notebooks = csv_scores(base / "out-notebooks")
        same_folder = sum(from_notebooks[s["name"]] == graded[s["name"]] for s in chosen)
        same_book = sum(from_notebooks[s["name"]] == gradebook.get(s["name"]) for s in chosen)
        rows += [
            (f"nbgrader autograde on {len(chosen)} of the submissions as notebooks", ""),
            ("  nbgrader autograde, seconds per submission (wall)", f"{nb_per:.3f}"),
            ("  ratio to grade DIR's seconds per submission (must not fall below ~5)", f"{nb_per / per:.1f}x"),
            (
                f"  grade DIR on the same {len(chosen)} notebooks, seconds per submission",
                f"{kit_wall / len(chosen):.3f}",
            ),
        ]
        print(
            f"nbgrader autograde: {len(chosen)} notebooks in {nb_wall:.1f} s wall; scores: grade DIR on the "
            f"notebooks = nbgrader's gradebook for {same_book}/{len(chosen)}, = the folders' for "
            f"{same_folder}/{len(chosen)}"
        )
        status = 0 if same_book == len(chosen) else 1
    width = max(len(name) for name, _ in rows)
    print("\n" + "\n".join(f"{name:<{width}}  {value:>8}" for name, value in rows))
    return status


def _proportional(submissions: list[dict], count: int) -> list[dict]:
    """count submissions drawn in proportion to their kinds, each kind present at least once."""
    by_kind: dict[str, list[dict]] = {}
    for submission in submissions:
        by_kind.setdefault(submission["kind"], []).append(submission)
    share = {kind: max(1, round(len(items) * count / len(submissions))) for kind, items in by_kind.items()}
    while sum(share.values()) > count and max(share.get("correct", 0), share.get("wrong", 0)) > 1:
        share["correct" if share.get("correct", 0) >= share.get("wrong", 0) else "wrong"] -= 1
    return sorted((s for kind, items in by_kind.items() for s in items[: share[kind]]), key=lambda s: s["name"])


if __name__ == "__main__":
    sys.exit(main())
