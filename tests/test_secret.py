"""Class grading draws its inputs from the course secret: other inputs than the release's, the same verdicts on honest
code (the solutions and the right corpus), the secret never shipped to learners."""
import json
import os
import subprocess
import sys
from pathlib import Path

from autograder.engine import inputs
from autograder.engine.secret import ENVIRONMENT, SECRET_FILE, class_secret

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


def make_one(rng) -> dict:
    """A drawn input: one seed and one size."""
    return {"seed": inputs.seed(rng), "T": rng.randint(1, 9)}


def drawn() -> list:
    """The values of ten drawn inputs."""
    return [param.values for param in inputs.draw(7, 10, make_one)]


def test_the_secret_changes_every_drawn_input_and_the_public_seeds_come_back():
    public, tensor = drawn(), inputs.randn(3, seed=1)
    try:
        inputs.use_secret("a course secret")
        secret = drawn()
        assert drawn() == secret  # the same secret, the same inputs: the same score every run
        assert [v[0] for v in secret] != [v[0] for v in public]
        assert not inputs.randn(3, seed=1).equal(tensor)
    finally:
        inputs.use_secret("")
    assert drawn() == public and inputs.randn(3, seed=1).equal(tensor) and inputs.seeded(5) == 5


def test_the_release_and_the_learners_never_get_the_secret():
    from autograder.course.manifest import load_course
    from autograder.maintainer.release import main_files

    made, saved = not SECRET_FILE.exists(), os.environ.pop(ENVIRONMENT, None)
    try:
        assert len(class_secret()) == 64 and class_secret() == class_secret(create=False)
        assert oct(SECRET_FILE.stat().st_mode & 0o777) == "0o600"
        shipped = main_files(load_course(ROOT))
        assert not any(name.endswith(SECRET_FILE.name) for name in shipped), sorted(shipped)
        assert SECRET_FILE.name in (ROOT / ".gitignore").read_text()
    finally:
        if made:
            SECRET_FILE.unlink()
        if saved is not None:
            os.environ[ENVIRONMENT] = saved


GRADE_UNDER_SECRET = """
import json, shutil, sys, tempfile
from pathlib import Path
from autograder.course.manifest import load_course
from autograder.engine import inputs
from autograder.engine.run import grade_many
inputs.use_secret("secret of a test course")
root, files = Path(sys.argv[1]), sys.argv[2:]
course, scratch, jobs = load_course(root), Path(tempfile.mkdtemp()), []
jobs.append((shutil.copytree(root / "solutions", scratch / "solutions"), list(course.numbers)))
for index, file in enumerate(files):
    package = shutil.copytree(root / "solutions", scratch / f"p{index}")
    number = int(Path(file).name[1:3])
    shutil.copy(file, package / Path(course.question(number).file).name)
    jobs.append((package, [number]))
reports = grade_many(course, jobs)
print(json.dumps([[q.status for q in report.questions] for report in reports]))
"""


def test_honest_code_keeps_its_verdicts_under_the_secret():
    right = sorted(p for p in (CORPUS / "right").glob("q0[1-4]_*.py"))
    wrong = sorted((CORPUS / "wrong").glob("q0[12]_*.py"))[:4]
    done = subprocess.run([sys.executable, "-c", GRADE_UNDER_SECRET, str(ROOT), *map(str, right + wrong)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    statuses = json.loads(done.stdout.strip().splitlines()[-1])
    assert statuses[0] == ["passed"] * 10, statuses[0]  # the solutions: every question, training included
    assert statuses[1:1 + len(right)] == [["passed"]] * len(right), list(zip(right, statuses[1:]))
    assert all(s != ["passed"] for s in statuses[1 + len(right):]), list(zip(wrong, statuses[1 + len(right):]))


SAYS_ITS_INPUT = '''
def prefix_average(x):
    """Names the input it was given, instead of averaging it."""
    raise ValueError(f"given x summing to {float(x.sum()):.6f}")
'''


def _test_cell_summary(secret: str) -> str:
    """What an nbgrader test cell of question 1 prints for SAYS_ITS_INPUT, graded by the cell's grading process."""
    from autograder.course.manifest import load_course
    from autograder.nbgrader.cell import _CHILD, KIT_DIR
    from autograder.nbgrader.package import marker

    request = {
        "course_root": str(ROOT),
        "number": 1,
        "history": [marker(load_course(ROOT).question(1)) + "\n" + SAYS_ITS_INPUT],
    }
    done = subprocess.run(
        [sys.executable, "-I", "-c", _CHILD, KIT_DIR],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, ENVIRONMENT: secret},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)["summary"]


def test_nbgrader_test_cells_draw_their_inputs_from_the_course_secret():
    public, secret = _test_cell_summary(""), _test_cell_summary("secret of a test course")
    assert "given x summing to" in public and "given x summing to" in secret, (public, secret)
    assert public != secret  # the same check, another input: a table built from the release matches nothing


def test_every_seed_of_the_suites_goes_through_the_secret():
    """A generator seeded with a bare number would give class grading the release's inputs: the suites seed only from
    seeded(...) or from a draw's own rng (itself seeded from the secret), and the proxy mixes it into
    Generator(seed)."""
    import re

    from autograder.engine.proxy import Generator, Student

    suites = ROOT / "autograder" / "suites"
    seeds = [
        (path.name, match)
        for path in sorted(suites.rglob("*.py"))
        for match in re.findall(r"manual_seed\(([^)]*\)?)", path.read_text(encoding="utf-8"))
    ]
    assert seeds and all(arg.startswith(("seeded(", "seed(rng)")) for _, arg in seeds), seeds
    try:
        inputs.use_secret("a course secret")
        assert Student._encode(None, Generator(3)) == {"__generator__": inputs.seeded(3)} != {"__generator__": 3}
    finally:
        inputs.use_secret("")
