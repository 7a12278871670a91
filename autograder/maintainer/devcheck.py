"""`python -m autograder dev-check`: the maintainer's guard over the manifest, the files, the stubs and the grading."""
import ast
from pathlib import Path

from ..course.manifest import Course, Question, decode_answer
from ..course.results import NOT_ATTEMPTED, PASSED, QuestionResult
from ..i18n import N_, _, ngettext, number_text
from .new import PLACEHOLDER
from .stubs import StubError, expected_stubs

Outcome = tuple[bool, str]  # (passed, one-line detail)
FORBIDDEN_IMPORTS = ("autograder", "reference", "solutions", "exercises")


def _parse(path: Path) -> ast.Module | str:
    """The module's syntax tree, or why it has none."""
    if not path.is_file():
        return _("missing")
    try:
        return ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError as error:
        return _("SyntaxError line {line}").format(line=error.lineno)


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level: functions, classes and assigned names."""
    names = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
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
            problems.append(_("{folder}/__init__.py is missing").format(folder=folder))
        for question in course.questions:
            path = course.root / folder / Path(question.file).name
            tree = _parse(path)
            if isinstance(tree, str):
                problems.append(f"{folder}/{path.name}: {tree}")
            elif missing := [name for name in question.functions if name not in _defined(tree)]:
                problems.append(
                    _("{folder}/{file} does not define {names}").format(
                        folder=folder, file=path.name, names=", ".join(missing)
                    )
                )
    return _summary(
        problems,
        _("{count} modules in exercises/ and solutions/ define every listed function").format(
            count=len(course.questions)
        ),
    )


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
            problems.append(_("autograder/suites/{file} has no test function").format(file=path.name))
        problems += [
            _("autograder/suites/{file}: {test} has no @pytest.mark.points(...)").format(file=path.name, test=node.name)
            for node in tests
            if not _points(node) and not any("ungraded" in ast.unparse(d) for d in node.decorator_list)
        ]
    return _summary(
        problems,
        _("a pytest suite with pointed tests for each of the {count} questions").format(count=len(course.questions)),
    )


def check_stubs(course: Course) -> Outcome:
    """exercises/ holds exactly the stubs that stubs.expected_stubs makes from solutions/."""
    try:
        wanted = expected_stubs(course.root / "solutions")
    except StubError as error:
        return False, str(error)
    present = {path.name for path in (course.root / "exercises").glob("*.py")}
    problems = [_("exercises/{name} is missing").format(name=name) for name in sorted(set(wanted) - present)]
    problems += [
        _("exercises/{name} has no counterpart in solutions/").format(name=name)
        for name in sorted(present - set(wanted))
    ]
    for name in sorted(set(wanted) & present):
        have, want = (
            (course.root / "exercises" / name).read_text(encoding="utf-8").splitlines(),
            wanted[name].splitlines(),
        )
        if have != want:
            line = next(
                (i for i, (a, b) in enumerate(zip(have, want), start=1) if a != b), min(len(have), len(want)) + 1
            )
            problems.append(
                _("exercises/{name} differs from the stub made from solutions/{name} at line {line}").format(
                    name=name, line=line
                )
            )
    if problems:
        problems.append(
            _("regenerate with autograder.maintainer.stubs.write_stubs(Path('solutions'), Path('exercises'))")
        )
    return _summary(
        problems, _("exercises/ is exactly the {count} files made from solutions/").format(count=len(wanted))
    )


def check_teaching(course: Course) -> Outcome:
    """Every question has at least one hint and at least two self-test entries with answers."""
    problems = []
    for question in course.questions:
        if not any(hint.strip() for hint in question.hints):
            problems.append(_("question {number} has no hint").format(number=question.number))
        answered = [s for s in question.selftest if s.question.strip() and decode_answer(s.answer).strip()]
        if len(answered) < 2:
            problems.append(
                _("question {number} has {count} self-test entries with answers (at least 2)").format(
                    number=question.number, count=len(answered)
                )
            )
    return _summary(problems, _("every question has hints and at least 2 answered self-test entries"))


def check_points(course: Course) -> Outcome:
    """Every question is worth a positive number of points; report the total."""
    problems = [
        _("question {number} is worth {points} points").format(number=q.number, points=number_text(q.points))
        for q in course.questions
        if q.points <= 0
    ]
    return _summary(
        problems,
        _("total {points} points over {count} questions").format(
            points=number_text(course.max_score), count=len(course.questions)
        ),
    )


def _placeholder_lines(path: Path) -> list[int]:
    """The numbers of path's lines that still hold the placeholder `new` writes (none when path is missing)."""
    if not path.is_file():
        return []
    return [
        index
        for index, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PLACEHOLDER in line
    ]


def check_placeholders(course: Course) -> Outcome:
    """No text that `python -m autograder new` wrote for the author to replace is left: course.yaml, each question's
    solution, suite and bank, the oracle."""
    paths = [Path("course.yaml"), *sorted(p.relative_to(course.root) for p in (course.root / "reference").glob("*.py"))]
    for question in course.questions:
        paths += [
            Path("solutions") / Path(question.file).name,
            Path("autograder/suites") / f"test_{question.module}.py",
            Path("autograder/suites/mistakes") / f"q{question.number:02d}.py",
        ]
    problems = [
        ngettext("{file} line {lines}", "{file} lines {lines}", len(lines)).format(
            file=path.as_posix(), lines=", ".join(map(str, lines))
        )
        for path in paths
        if (lines := _placeholder_lines(course.root / path))
    ]
    if problems:
        problems.insert(0, _("to fill in, where {marker} is written").format(marker=repr(PLACEHOLDER)))
    return (
        not problems,
        problems[0] + ": " + "; ".join(problems[1:]) if problems else _("nothing left for the author to fill in"),
    )


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
                    problems.append(
                        _("question {number} imports .{name}, which is no question's module").format(
                            number=question.number, name=name
                        )
                    )
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and not node.level
            else []
        ):
            if name.split(".")[0] in FORBIDDEN_IMPORTS:
                problems.append(
                    _("question {number} imports {name}; use a relative import of an earlier question").format(
                        number=question.number, name=name
                    )
                )
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
            problems.append(
                _("question {number} requires {required} but imports {imported}").format(
                    number=question.number, required=sorted(question.requires), imported=sorted(used)
                )
            )
    return _summary(problems, _("every `requires` matches the relative imports of its solution"))


def check_grading(course: Course) -> list[tuple[str, bool, str]]:
    """Grade exercises/ and solutions/ in one grade_many call: stubs not attempted at 0, solutions all passed."""
    from ..engine.run import grade_many

    ready = [q for q in course.questions if check_files(_only(course, q))[0] and check_suites(_only(course, q))[0]]
    skipped = [q.number for q in course.questions if q not in ready]
    numbers = [q.number for q in ready]
    try:
        stubs, answers = grade_many(
            course, [(course.root / "exercises", numbers), (course.root / "solutions", numbers)]
        )
    except Exception as error:  # noqa: BLE001 - a broken suite or worker: say so in one line
        reason = (
            _("grading could not run: {error}: {message}")
            .format(error=type(error).__name__, message=error)
            .splitlines()[0]
        )
        return [(STUBS_FAIL, False, reason), (SOLUTIONS_PASS, False, reason)]
    note = [_("questions {numbers} not graded (missing file or suite)").format(numbers=skipped)] if skipped else []
    bad_stubs = [
        _("question {number} is '{status}' with {score}").format(
            number=r.number, status=_(r.status), score=number_text(r.score)
        )
        for r in stubs.questions
        if r.status != NOT_ATTEMPTED or r.score != 0
    ]
    bad_answers = [
        _("question {number} is '{status}' with {score}/{total}: {failure}").format(
            number=r.number,
            status=_(r.status),
            score=number_text(r.score),
            total=number_text(r.max_score),
            failure=_first_failure(r),
        )
        for r in answers.questions
        if r.status != PASSED
    ]
    return [
        (
            STUBS_FAIL,
            *_summary(
                bad_stubs + note,
                _("all {count} stubs graded '{status}', score 0").format(count=len(numbers), status=_(NOT_ATTEMPTED)),
            ),
        ),
        (
            SOLUTIONS_PASS,
            *_summary(
                bad_answers + note,
                _("all {count} solutions at full marks, {score}/{total}").format(
                    count=len(numbers), score=number_text(answers.score), total=number_text(answers.max_score)
                ),
            ),
        ),
    ]


def _only(course: Course, question: Question) -> Course:
    """The course reduced to one question, to check it alone."""
    return Course(course.title, course.description, (question,), course.root)


def _first_failure(result: QuestionResult) -> str:
    """The reason or the first failed check of a question result, in one line."""
    failed = [t for t in result.tests if not t.passed]
    text = result.reason or (f"{failed[0].name}: {failed[0].message}" if failed else "")
    return text.splitlines()[0] if text else _("no detail")


CHECKS = [
    (N_("files and functions"), check_files),
    (N_("suites"), check_suites),
    (N_("stubs in sync"), check_stubs),
    (N_("hints and self-test"), check_teaching),
    (N_("points"), check_points),
    (N_("requires"), check_requires),
    (N_("filled in"), check_placeholders),
]
# names: translated where shown
STUBS_FAIL, SOLUTIONS_PASS, MANIFEST, SOLUTIONS = (
    N_("stubs fail"),
    N_("solutions pass"),
    N_("manifest"),
    N_("solutions"),
)


def _print(name: str, passed: bool, detail: str) -> None:
    """One line of the report: `ok` or `FAILED`, the check, the detail."""
    verdict, shown = _("ok") if passed else _("FAILED"), _(name)
    print(f"{verdict:<7} {shown}: {detail}", flush=True)


def dev_check(course: Course) -> int:
    """Run every check, print one line each (ok / FAILED with the reason); 0 when all pass, else 1."""
    if not (course.root / "solutions").is_dir():
        _print(
            SOLUTIONS,
            False,
            _("no solutions/ in {root}: dev-check runs in the instructor's repository").format(root=course.root),
        )
        return 1
    lines = [
        (
            MANIFEST,
            True,
            _("course.yaml loads: {count} questions, numbers {numbers}").format(
                count=len(course.questions), numbers=course.numbers
            ),
        )
    ]
    _print(*lines[0])
    for name, check in CHECKS:
        lines.append((name, *check(course)))
        _print(*lines[-1])
    for line in check_grading(course):
        lines.append(line)
        _print(*line)
    failed = [name for name, passed, _detail in lines if not passed]
    verdict = _("; FAILED: {names}").format(names=", ".join(_(name) for name in failed)) if failed else ""
    print(
        _("dev-check: {passed} of {total} checks passed{verdict}").format(
            passed=len(lines) - len(failed), total=len(lines), verdict=verdict
        )
    )
    return 1 if failed else 0
