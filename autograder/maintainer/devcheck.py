"""`python -m autograder dev-check`: the maintainer's guard over the manifest, the files, the stubs and the grading."""
import ast
from pathlib import Path

from ..course.manifest import Course, Question, decode_answer
from ..course.results import NOT_ATTEMPTED, PASSED, QuestionResult
from .stubs import StubError, expected_stubs

Outcome = tuple[bool, str]  # (passed, one-line detail)
FORBIDDEN_IMPORTS = ("autograder", "reference", "solutions", "exercises")


def _parse(path: Path) -> ast.Module | str:
    """The module's syntax tree, or why it has none."""
    if not path.is_file():
        return "missing"
    try:
        return ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError as error:
        return f"SyntaxError line {error.lineno}"


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level: functions, classes and assigned names."""
    names = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def _summary(problems: list[str], good: str) -> Outcome:
    """(True, good) without problems, else (False, the problems joined)."""
    return (not problems, "; ".join(problems) if problems else good)


def check_files(course: Course) -> Outcome:
    """Each question's module is in exercises/ and solutions/, both packages, and defines every listed name."""
    problems = []
    for folder in ("exercises", "solutions"):
        if not (course.root / folder / "__init__.py").is_file():
            problems.append(f"{folder}/__init__.py is missing")
        for question in course.questions:
            path = course.root / folder / Path(question.file).name
            tree = _parse(path)
            if isinstance(tree, str):
                problems.append(f"{folder}/{path.name}: {tree}")
            elif missing := [name for name in question.functions if name not in _defined(tree)]:
                problems.append(f"{folder}/{path.name} does not define {', '.join(missing)}")
    return _summary(problems, f"{len(course.questions)} modules in exercises/ and solutions/ define every listed function")


def _points(node: ast.FunctionDef) -> bool:
    """True when a test function carries `@pytest.mark.points(...)`."""
    return any(isinstance(d, ast.Call) and ast.unparse(d.func).endswith("mark.points") for d in node.decorator_list)


def check_suites(course: Course) -> Outcome:
    """autograder/suites/test_<module>.py exists for each question and each of its tests has its points."""
    problems = []
    for question in course.questions:
        path = course.root / "autograder" / "suites" / f"test_{question.module}.py"
        tree = _parse(path)
        if isinstance(tree, str):
            problems.append(f"autograder/suites/{path.name}: {tree}")
            continue
        tests = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
        if not tests:
            problems.append(f"autograder/suites/{path.name} has no test function")
        problems += [f"autograder/suites/{path.name}: {node.name} has no @pytest.mark.points(...)" for node in tests
                     if not _points(node) and not any("ungraded" in ast.unparse(d) for d in node.decorator_list)]
    return _summary(problems, f"a pytest suite with pointed tests for each of the {len(course.questions)} questions")


def check_stubs(course: Course) -> Outcome:
    """exercises/ holds exactly the stubs that stubs.expected_stubs makes from solutions/."""
    try:
        wanted = expected_stubs(course.root / "solutions")
    except StubError as error:
        return False, str(error)
    present = {path.name for path in (course.root / "exercises").glob("*.py")}
    problems = [f"exercises/{name} is missing" for name in sorted(set(wanted) - present)]
    problems += [f"exercises/{name} has no counterpart in solutions/" for name in sorted(present - set(wanted))]
    for name in sorted(set(wanted) & present):
        have, want = (course.root / "exercises" / name).read_text(encoding="utf-8").splitlines(), wanted[name].splitlines()
        if have != want:
            line = next((i for i, (a, b) in enumerate(zip(have, want), start=1) if a != b), min(len(have), len(want)) + 1)
            problems.append(f"exercises/{name} differs from the stub made from solutions/{name} at line {line}")
    if problems:
        problems.append("regenerate with autograder.maintainer.stubs.write_stubs(Path('solutions'), Path('exercises'))")
    return _summary(problems, f"exercises/ is exactly the {len(wanted)} files made from solutions/")


def check_teaching(course: Course) -> Outcome:
    """Every question has at least one hint and at least two self-test entries with answers."""
    problems = []
    for question in course.questions:
        if not any(hint.strip() for hint in question.hints):
            problems.append(f"question {question.number} has no hint")
        answered = [s for s in question.selftest if s.question.strip() and decode_answer(s.answer).strip()]
        if len(answered) < 2:
            problems.append(f"question {question.number} has {len(answered)} self-test entries with answers (at least 2)")
    return _summary(problems, "every question has hints and at least 2 answered self-test entries")


def check_points(course: Course) -> Outcome:
    """Every question is worth a positive number of points; report the total."""
    problems = [f"question {q.number} is worth {q.points:g} points" for q in course.questions if q.points <= 0]
    return _summary(problems, f"total {course.max_score:g} points over {len(course.questions)} questions")


def _imports(question: Question, tree: ast.Module, modules: dict[str, int]) -> tuple[set[int], list[str]]:
    """Question numbers a solution module imports relatively, and imports it must not make."""
    used, problems = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            for name in names:
                if name.split(".")[0] in modules:
                    used.add(modules[name.split(".")[0]])
                else:
                    problems.append(f"question {question.number} imports .{name}, which is no question's module")
        for name in [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []:
            if name.split(".")[0] in FORBIDDEN_IMPORTS:
                problems.append(f"question {question.number} imports {name}; use a relative import of an earlier question")
    return used, problems


def check_requires(course: Course) -> Outcome:
    """Each question's `requires` equals the questions its solution module imports relatively."""
    modules = {q.module: q.number for q in course.questions}
    problems = []
    for question in course.questions:
        tree = _parse(course.root / "solutions" / Path(question.file).name)
        if isinstance(tree, str):
            continue  # check_files reports it
        used, wrong = _imports(question, tree, modules)
        problems += wrong
        if used != set(question.requires):
            problems.append(f"question {question.number} requires {sorted(question.requires)} but imports {sorted(used)}")
    return _summary(problems, "every `requires` matches the relative imports of its solution")


def check_grading(course: Course) -> list[tuple[str, bool, str]]:
    """Grade exercises/ and solutions/ in one grade_many call: stubs not attempted at 0, solutions all passed."""
    from ..engine.run import grade_many

    ready = [q for q in course.questions if check_files(_only(course, q))[0] and check_suites(_only(course, q))[0]]
    skipped = [q.number for q in course.questions if q not in ready]
    numbers = [q.number for q in ready]
    try:
        stubs, answers = grade_many(course, [(course.root / "exercises", numbers), (course.root / "solutions", numbers)])
    except Exception as error:  # noqa: BLE001 - a broken suite or worker: say so in one line
        reason = f"grading could not run: {type(error).__name__}: {error}".splitlines()[0]
        return [("stubs fail", False, reason), ("solutions pass", False, reason)]
    note = [f"questions {skipped} not graded (missing file or suite)"] if skipped else []
    bad_stubs = [f"question {r.number} is {r.status!r} with {r.score:g}" for r in stubs.questions if r.status != NOT_ATTEMPTED or r.score != 0]
    bad_answers = [f"question {r.number} is {r.status!r} with {r.score:g}/{r.max_score:g}: {_first_failure(r)}"
                   for r in answers.questions if r.status != PASSED]
    return [
        ("stubs fail", *_summary(bad_stubs + note, f"all {len(numbers)} stubs graded 'not attempted', score 0")),
        ("solutions pass", *_summary(bad_answers + note, f"all {len(numbers)} solutions at full marks, {answers.score:g}/{answers.max_score:g}")),
    ]


def _only(course: Course, question: Question) -> Course:
    """The course reduced to one question, to check it alone."""
    return Course(course.title, course.description, (question,), course.root)


def _first_failure(result: QuestionResult) -> str:
    """The reason or the first failed check of a question result, in one line."""
    failed = [t for t in result.tests if not t.passed]
    text = result.reason or (f"{failed[0].name}: {failed[0].message}" if failed else "")
    return text.splitlines()[0] if text else "no detail"


CHECKS = [("files and functions", check_files), ("suites", check_suites), ("stubs in sync", check_stubs),
          ("hints and self-test", check_teaching), ("points", check_points), ("requires", check_requires)]


def _print(name: str, passed: bool, detail: str) -> None:
    """One line of the report: `ok` or `FAILED`, the check, the detail."""
    print(f"{'ok' if passed else 'FAILED':<7} {name}: {detail}", flush=True)


def dev_check(course: Course) -> int:
    """Run every check, print one line each (ok / FAILED with the reason); 0 when all pass, else 1."""
    if not (course.root / "solutions").is_dir():
        _print("solutions", False, f"no solutions/ in {course.root}: dev-check runs in the instructor's repository")
        return 1
    lines = [("manifest", True, f"course.yaml loads: {len(course.questions)} questions, numbers {course.numbers}")]
    _print(*lines[0])
    for name, check in CHECKS:
        lines.append((name, *check(course)))
        _print(*lines[-1])
    for line in check_grading(course):
        lines.append(line)
        _print(*line)
    failed = [name for name, passed, _ in lines if not passed]
    verdict = f"; FAILED: {', '.join(failed)}" if failed else ""
    print(f"dev-check: {len(lines) - len(failed)} of {len(lines)} checks passed{verdict}")
    return 1 if failed else 0
