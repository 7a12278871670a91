"""Gradescope: `python -m autograder gradescope OUT.zip` writes an autograder zip; its run_autograder grades one
submission.

The zip holds what Gradescope's autograder specification asks for at its root: setup.sh (run once when Gradescope
builds the image: the pinned CPU torch, then the kit) and run_autograder (run for every submission), with the kit
itself in kit/ (autograder/, reference/, course.yaml, pyproject.toml and README.md; never solutions/, exercises/
or tests/). Gradescope unpacks the zip into /autograder/source.

run_autograder grades /autograder/submission as `check` grades exercises/ (the same suites, sandbox and scores) and
writes /autograder/results/results.json: the total score, one test per check (name, score, max_score, status, output,
visibility "visible"), the report as `check` prints it at the top (self-test answers of the questions at full marks
included), execution_time, and stdout_visibility "hidden". The submission may be the exercise modules at its top
level, in an exercises/ folder (at any depth: a repository or an unpacked zip), or a notebook of the nbgrader
assignment; a zip at its top level is unpacked first, as Gradescope unpacks an uploaded zip (a local run is given the
zip itself); a module that is not there counts as missing, as with `check`, and the other modules of the folder found
(a helper that an answer imports) are graded with them, as `check` grades exercises/ as it is. Nothing a student's
code prints reaches the results (it could echo the hidden inputs): it goes to run_autograder's stdout, which only
instructors see.

AUTOGRADER_ROOT (default /autograder) moves the whole layout (source/, submission/, results/), so that a test can
run the real script on a temporary folder; AUTOGRADER_PYTHON (default python3) picks the interpreter.
"""
import argparse
import dataclasses
import html
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from ..course.implicated import implicated
from ..course.manifest import Course, ManifestError, find_root, load_course
from ..course.results import ERROR, PASSED, CaseResult, QuestionResult, Report, missing_file, number
from ..course.text import text
from ..course.view import Local, report_view
from ..i18n import _
from ..nbgrader.answers import read_answers
from ..nbgrader.package import PACKAGE_INIT, answer_id, write_package
from ..plots import PICTURES

KIT = "kit"  # the kit's folder inside the zip, hence /autograder/source/kit on Gradescope
SHIPPED_DIRS = ("autograder", "reference")  # copied whole, caches and hidden files left out
SHIPPED_FILES = ("course.yaml", "pyproject.toml", "README.md")  # pyproject.toml names README.md: pip needs it
SKIPPED_PARTS = {"__pycache__"}
SKIPPED_SUFFIXES = {".pyc", ".pyo"}
ZIP_DATE = (2026, 1, 1, 0, 0, 0)  # fixed, so that the same kit always gives the same zip
TORCH = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # the CPU wheel: PyPI's Linux wheel pulls the CUDA libraries
SKIPPED_FOLDERS = {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git"}
SEARCH_DEPTH = 4  # folders below /autograder/submission searched for the modules or a notebook
MODULE_BYTES = 1 << 20  # a larger "module" is not read
UNZIPPED_BYTES = 64 << 20  # a zip in the submission that unpacks to more is left packed
LINK = 0o120000  # a zip member's mode bits for a symbolic link
# "1" (run_autograder of a zip built with --allow-weak-isolation): grade anyway
ALLOW_WEAK = "AUTOGRADER_ALLOW_WEAK_ISOLATION"

SETUP_SH = f"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: Python, the CPU build of torch, the kit.
# AUTOGRADER_ROOT (default /autograder) moves it elsewhere, as it moves run_autograder.
set -euo pipefail
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1  # images whose Python is system-managed
if ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-pip
fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10) and "the kit needs Python 3.10 or newer: pick a newer base image")'
python3 -m pip install "{TORCH}" --index-url {TORCH_INDEX}
python3 -m pip install "${{AUTOGRADER_ROOT:-/autograder}}/source/{KIT}"
python3 -c 'import torch, autograder; print("torch", torch.__version__, "and the kit are installed")'
"""  # noqa: E501 - a program's text, written out as it is

RUN_AUTOGRADER = f"""#!/usr/bin/env bash
# Gradescope runs this for every submission, as root: grade /autograder/submission with the kit in
# /autograder/source/{KIT} and write /autograder/results/results.json. What it prints only instructors see.
# AUTOGRADER_ROOT (default /autograder) and AUTOGRADER_PYTHON (default python3) let a test run it elsewhere.
root="${{AUTOGRADER_ROOT:-/autograder}}"
mkdir -p "$root/results"
cd "$root/source/{KIT}" && "${{AUTOGRADER_PYTHON:-python3}}" -m autograder.classroom.gradescope "$root"
status=$?
if [ ! -s "$root/results/results.json" ]; then  # the grader could not even start: still give Gradescope an answer
    cat > "$root/results/results.json" <<EOF
{{"score": 0, "output": "The autograder could not run (exit status $status), so this is not a grade: please tell your instructor.", "visibility": "visible", "stdout_visibility": "hidden", "tests": []}}
EOF
fi
exit $status
"""  # noqa: E501 - a program's text, written out as it is


# -- the zip ----------------------------------------------------------------------------------------------


def kit_files(course: Course) -> dict[str, Path]:
    """The kit's files that go into the zip, by their path inside kit/ (solutions/, exercises/ and tests/ never do)."""
    root = course.root
    files = {name: root / name for name in SHIPPED_FILES if (root / name).is_file()}
    for folder in SHIPPED_DIRS:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root)
            if (
                path.is_file()
                and not SKIPPED_PARTS & set(relative.parts)
                and path.suffix not in SKIPPED_SUFFIXES
                and not any(part.startswith(".") for part in relative.parts)
            ):
                files[relative.as_posix()] = path
    from ..engine.secret import SECRET_FILE, class_secret

    # the course secret, made now if need be: Gradescope draws its inputs from it, as every class grading does
    class_secret()
    if SECRET_FILE.is_file():  # absent where AUTOGRADER_SECRET stands in for it
        files["autograder/suites/" + SECRET_FILE.name] = SECRET_FILE
    return files


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, ZIP_DATE)
    info.external_attr = (0o100755 if executable else 0o100644) << 16  # a regular file, with its mode
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def write_zip(course: Course, out_zip: Path, allow_weak_isolation: bool = False) -> None:
    """Write Gradescope's autograder zip for course: setup.sh and run_autograder at its root, the kit in kit/.
    allow_weak_isolation: its run_autograder grades even where seccomp or Landlock cannot be put up (and says so)."""
    missing = [
        name
        for name in ("course.yaml", "pyproject.toml", "autograder", "reference")
        if not (course.root / name).exists()
    ]
    if missing:
        raise ManifestError(
            _("{root} is not a whole kit (no {missing}): run the command from the kit's folder").format(
                root=course.root, missing=", ".join(missing)
            )
        )
    out_zip.parent.mkdir(parents=True, exist_ok=True)
    partial = out_zip.with_name(out_zip.name + ".partial")
    with zipfile.ZipFile(partial, "w") as archive:
        _add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
        script = (
            RUN_AUTOGRADER.replace("\nmkdir", f"\nexport {ALLOW_WEAK}=1\nmkdir", 1)
            if allow_weak_isolation
            else RUN_AUTOGRADER
        )
        _add(archive, "run_autograder", script.encode(), executable=True)
        for name, path in kit_files(course).items():
            _add(archive, f"{KIT}/{name}", path.read_bytes())
    os.replace(partial, out_zip)


def main(args: argparse.Namespace, course: Course | None = None) -> int:
    """`python -m autograder gradescope OUT.zip` (args.out_zip): write the zip and say what to do with it."""
    course = course or load_course(find_root(Path.cwd()))
    write_zip(course, args.out_zip, getattr(args, "allow_weak_isolation", False))
    size = args.out_zip.stat().st_size / 1e6
    print(
        _(
            "Wrote {zip} ({size:.1f} MB): Gradescope's autograder for {title}, {questions} questions, {points:g} "
            "points."
        ).format(
            zip=args.out_zip,
            size=size,
            title=repr(course.title),
            questions=len(course.questions),
            points=course.max_score,
        )
    )
    print(
        _(
            "Upload it on the assignment's Configure Autograder page (Ubuntu 22.04 or newer; give it 2 GB of memory "
            "and a timeout of 10 minutes or more), then try it with Test Autograder. See docs/instructors.md."
        )
    )
    return 0


# -- what was submitted -----------------------------------------------------------------------------------


@dataclasses.dataclass
class Found:
    """What run_autograder will grade: where it came from and, per question, why its module is missing."""

    description: str
    missing: dict[int, str] = dataclasses.field(default_factory=dict)
    problem: str = ""  # one line shown above the report, when the submission is not what was expected


def _folders(top: Path) -> list[Path]:
    """top and the folders below it (SEARCH_DEPTH levels, hidden and cache folders left out), shallowest first."""
    found, level = [top], [top]
    for _depth in range(SEARCH_DEPTH):
        level = [
            child
            for folder in level
            for child in sorted(folder.iterdir(), key=lambda p: p.name)
            if child.is_dir()
            and not child.is_symlink()
            and child.name not in SKIPPED_FOLDERS
            and not child.name.startswith(".")
        ]
        found += level
    return found


def _module_files(course: Course, folder: Path) -> dict[int, Path]:
    """Question number -> the question's module in folder (a plain file, not a link, of a sane size)."""
    modules = {}
    for question in course.questions:
        path = folder / Path(question.file).name
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= MODULE_BYTES:
            modules[question.number] = path
    return modules


def _where(folder: Path, submission: Path) -> str:
    relative = folder.relative_to(submission).as_posix()
    return (
        _("the top level of your submission")
        if relative == "."
        else _("the folder {folder}/ of your submission").format(folder=relative)
    )


def unpacked(submission: Path, scratch: Path) -> Path:
    """submission with the zips at its top level unpacked where they lie, as Gradescope unpacks an uploaded zip into
    /autograder/submission (a local run is given the zip itself): a copy in scratch, or submission itself if it has
    none."""
    zips = (
        sorted(p for p in submission.glob("*.zip") if p.is_file() and not p.is_symlink()) if submission.is_dir() else []
    )
    if not zips:
        return submission
    copy = scratch / "submission"
    shutil.copytree(submission, copy, symlinks=True, ignore=shutil.ignore_patterns("*.zip"))
    top = copy.resolve()
    for path in zips:
        try:
            with zipfile.ZipFile(path) as archive:
                members = [
                    m for m in archive.infolist() if not m.is_dir() and (m.external_attr >> 16) & 0o170000 != LINK
                ]
                if sum(m.file_size for m in members) > UNZIPPED_BYTES:
                    continue
                for member in members:
                    target = (top / member.filename).resolve()
                    if top not in target.parents:  # an absolute name or ../: never outside the submission
                        continue
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with archive.open(member) as source, open(target, "wb") as out:
                        shutil.copyfileobj(source, out)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError):  # a damaged zip: what it held counts as missing
            continue
    return copy


def prepare(course: Course, submission: Path, package: Path) -> Found:
    """Write the exercises-like package to grade into package (created) from what was submitted; say what was found."""
    folders = _folders(submission) if submission.is_dir() else []
    modules, place = {}, submission
    for folder in folders:  # the folder holding most of the modules; the shallowest of equals
        found = _module_files(course, folder)
        if len(found) > len(modules):
            modules, place = found, folder
    notebooks = [
        path
        for folder in folders
        for path in sorted(folder.glob("*.ipynb"))
        if path.is_file() and not path.is_symlink()
    ]
    best_notebook, sources, problems = None, {}, []
    for path in notebooks:
        found, problem = read_answers(course, path, path.name)
        problems += [problem] if problem else []
        if best_notebook is None or len(found) > len(sources):
            best_notebook, sources = path, found
    if len(sources) > len(modules):
        write_package(course, sources, package)
        name = best_notebook.relative_to(submission).as_posix()
        # TRANSLATORS: what was graded, shown after "grading" in the report's first line and after "Graded" in the log
        found = Found(_("the notebook {name}").format(name=name))
        for question in course.questions:
            if question.number not in sources:
                (package / Path(question.file).name).unlink()
                found.missing[question.number] = _(
                    "{name} has no answer cell for question {number} (grade_id {grade_id})"
                ).format(name=name, number=question.number, grade_id=answer_id(question.number))
        return found
    package.mkdir(parents=True, exist_ok=True)
    # every module of that folder, as `check` grades exercises/ (a helper module a student imports included)
    if modules:
        for path in sorted(place.glob("*.py")):
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MODULE_BYTES:
                shutil.copyfile(path, package / path.name)
    if not (package / "__init__.py").exists():
        (package / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    where = _where(place, submission)
    # TRANSLATORS: what was graded, shown after "grading" in the report's first line and after "Graded" in the log
    found = Found(_("the modules at {where}").format(where=where) if modules else _("nothing"))
    for question in course.questions:
        if question.number not in modules:
            found.missing[question.number] = missing_file(Path(question.file).name, where)
    if not modules:
        wanted = ", ".join(Path(q.file).name for q in course.questions[:2])
        found.problem = ("; ".join(problems) + ". " if problems else "") + _(
            "No exercise module ({wanted}, ...) and no notebook with answers was found in your submission: upload the "
            "files of your exercises/ folder (or the folder itself, or your repository), or your notebook."
        ).format(wanted=wanted)
    return found


# -- results.json -----------------------------------------------------------------------------------------


def shares(points: float, weights: list[float]) -> list[int]:
    """points, in cents, shared among checks in proportion to their weights; the shares add up to the points exactly."""
    cents, total = round(points * 100), sum(weights)
    if not weights:
        return []
    if total <= 0:
        weights, total = [1.0] * len(weights), float(len(weights))
    shared, cumulative, before = [], 0.0, 0
    for weight in weights:
        cumulative += weight
        upto = round(cents * cumulative / total)
        shared.append(upto - before)
        before = upto
    return shared


def check_scores(result: QuestionResult) -> list[tuple[int, int]]:
    """(score, max_score) in cents for each check of result: a passed check scores its max, a failed one 0; the max
    scores add up to the question's points and the scores to its score as `check` gives it (rounded to the cent)."""
    maxima = shares(result.max_score, [test.weight for test in result.tests])
    passed = [i for i, test in enumerate(result.tests) if test.passed]
    failed = [i for i, test in enumerate(result.tests) if not test.passed]
    left = round(result.score * 100) - sum(maxima[i] for i in passed)  # a cent or two of rounding, either way
    turn = 0
    # move those cents of max between passed and failed checks
    while left and passed and failed and turn < 100 * len(maxima):
        giver, taker = (failed[turn % len(failed)], passed[turn % len(passed)])[:: 1 if left > 0 else -1]
        if maxima[giver] > 0:
            maxima[giver] -= 1
            maxima[taker] += 1
            left += -1 if left > 0 else 1
        turn += 1
    return [(top if test.passed else 0, top) for test, top in zip(result.tests, maxima)]


def _adjusted(report: Report, found: Found) -> Report:
    """The report with a missing module explained for Gradescope (course/feedback.py then leaves out the captured
    output)."""
    questions = []
    for result in report.questions:
        reason = found.missing.get(result.number)
        if reason and result.status == ERROR:
            tests = [dataclasses.replace(test, message=reason) for test in result.tests]
            result = dataclasses.replace(result, reason=reason, tests=tests)
        questions.append(result)
    return Report(questions)


def check_tags(number: int, test: CaseResult) -> list[str]:
    """Gradescope's tags of one check (its statistics group tests by them): its question, its own outcome, its known
    mistake."""
    return [f"question {number}", "passed" if test.passed else "failed"] + (
        [test.mistake] if test.mistake and not test.passed else []
    )


def _test_output(result: QuestionResult, index: int) -> str:
    test = result.tests[index]
    if test.passed:
        return _(PASSED)
    return test.message or result.reason or _(result.status)


def _render(report: Report, course: Course, label: str, answers: list[int] | tuple[int, ...] | None = None) -> str:
    """The report as `check`'s table (cli/report.py), with nothing of a student's own kit: no last `check`, no kept
    output files. answers: the questions whose self-test answers are shown (None: all)."""
    return text(report_view(report, course, label, answers, Local(PICTURES, implicated(report, course))))


def results_json(course: Course, report: Report, found: Found, seconds: float) -> dict:
    """Gradescope's results.json for one graded submission (see the module's docstring)."""
    from ..course.feedback import shown_report

    shown = shown_report(_adjusted(report, found), course.feedback)
    visibility = course.feedback.visibility
    tests = []
    for result in shown.questions:
        prefix = _("Question {number} ({title})").format(number=result.number, title=result.title)
        if not result.tests:  # no check ran at all: the question still shows, with its reason
            tests.append(
                {
                    "name": prefix,
                    "number": f"{result.number}",
                    "score": 0,
                    "max_score": number(result.max_score),
                    "status": "failed",
                    "output": result.reason or _(result.status),
                    "tags": [f"question {result.number}", "failed"],
                    "visibility": visibility,
                }
            )
            continue
        for index, (test, (score, top)) in enumerate(zip(result.tests, check_scores(result)), start=1):
            tests.append(
                {
                    "name": f"{prefix}: {test.name}",
                    "number": f"{result.number}.{index}",
                    "score": number(score / 100),
                    "max_score": number(top / 100),
                    "status": "passed" if test.passed else "failed",
                    "output": _test_output(result, index - 1),
                    "tags": check_tags(result.number, test),
                    "visibility": visibility,
                }
            )
    output = _render(shown, course, found.description, answers=None if course.feedback.selftest else ())
    if found.problem:
        output = found.problem + "\n\n" + output
    return {
        "score": number(shown.score),
        "execution_time": round(seconds),
        "output": f"<pre>{html.escape(output)}</pre>",
        "output_format": "html",
        "visibility": visibility,
        "stdout_visibility": "hidden",  # the students' own output is there, and it could echo the hidden inputs
        "tests": tests,
        "extra_data": {
            "graded": found.description,
            "missing": sorted(found.missing),
            "max_score": number(shown.max_score),
        },
    }


def weak_isolation(walls: list[str]) -> str:
    """The line that says a submission was graded where walls (seccomp, Landlock) could not be put up around its
    code."""
    return _(
        "Graded with weak isolation: this machine cannot put up {walls} around the student's code "
        "(the zip was built with --allow-weak-isolation)."
    ).format(walls=", ".join(walls))


def refused_results(course: Course, walls: list[str]) -> dict:
    """results.json of a submission not graded because walls (seccomp, Landlock) cannot be put up: 0, and why, in the
    output and in every question's."""
    why = _(
        "Not graded: the grading machine cannot put up {walls} around the student's code, so a hostile submission "
        "could reach the grader; this is not a grade: please tell your instructor (who may build the zip with "
        "--allow-weak-isolation to grade anyway)."
    ).format(walls=", ".join(walls))
    tests = [
        {
            "name": _("Question {number} ({title})").format(number=q.number, title=q.title),
            "number": f"{q.number}",
            "score": 0,
            "max_score": number(q.points),
            "status": "failed",
            "output": why,
            "tags": [f"question {q.number}", "failed"],
            "visibility": "visible",
        }
        for q in course.questions
    ]
    return {
        "score": 0,
        "output": why,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"weak_isolation": walls},
    }


def _mark_weak(results: dict, walls: list[str]) -> dict:
    """results with the weak-isolation line above its output and after every question's."""
    line = weak_isolation(walls)
    results["output"] = f"<pre>{html.escape(line)}</pre>" + results["output"]
    for test in results["tests"]:
        test["output"] = f"{test['output']}\n{line}"
    results["extra_data"]["weak_isolation"] = walls
    return results


def _write(path: Path, results: dict) -> None:
    """Write results.json atomically: Gradescope never reads half a file."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(results, indent=1), encoding="utf-8")
    os.replace(partial, path)


def run(root: Path) -> int:
    """Grade root/submission with the kit in root/source/kit into root/results/results.json; the exit status."""
    from ..sandbox import missing_walls, start_sandbox

    start = time.monotonic()
    target = root / "results" / "results.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    _write(
        target,
        {
            "score": 0,
            "output": _(
                "The grading did not finish (it ran out of time, or the grader failed), so this is "
                "not a grade: please tell your instructor."
            ),
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": [],
        },
    )
    walls = missing_walls()
    if walls and os.environ.get(ALLOW_WEAK) != "1":  # fail closed, as `grade` does without --allow-weak-isolation
        try:
            _write(target, refused_results(load_course(root / "source" / KIT), walls))
        except Exception:  # noqa: BLE001 - the placeholder stays; the details are for the instructor's stdout
            traceback.print_exc()
        print(
            _("autograder: not graded: this machine cannot put up {walls} around the student's code").format(
                walls=", ".join(walls)
            )
        )
        return 1
    sandbox = start_sandbox()  # first: the worker's import of torch overlaps the grader's
    try:
        course = load_course(root / "source" / KIT)
        with tempfile.TemporaryDirectory(prefix="gradescope-") as scratch:
            package = Path(scratch) / "exercises"
            found = prepare(course, unpacked(root / "submission", Path(scratch)), package)
            from ..engine.run import grade_many
            from ..engine.secret import for_class_grading

            if not for_class_grading(create=False):
                print(
                    _("autograder: the zip has no course secret: the inputs are the public ones (build the zip again)")
                )

            owned, sandbox = sandbox, None  # grade_many closes it, whatever happens
            # the submission, the results, the kit
            report = grade_many(course, [(package, course.numbers)], sandbox=owned, hidden=(root,))[0]
        results = results_json(course, report, found, time.monotonic() - start)
        if walls:
            results = _mark_weak(results, walls)
        _write(target, results)
    except Exception:  # noqa: BLE001 - the placeholder stays; the details are for the instructor's stdout
        traceback.print_exc()
        return 1
    finally:
        if sandbox is not None:
            sandbox.close()
    print(
        _("Graded {what} in {seconds} s: {score} / {total}").format(
            what=found.description,
            seconds=results['execution_time'],
            score=results['score'],
            total=number(report.max_score),
        )
    )
    print(_render(report, course, found.description))  # with the students' captured output: instructors only
    for result in report.questions:
        if result.output.strip():
            print(
                "\n"
                + _("--- what question {number}'s code printed ---").format(number=result.number)
                + f"\n{result.output.rstrip()}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("AUTOGRADER_ROOT", "/autograder"))))
