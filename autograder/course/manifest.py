"""Load course.yaml once into typed dataclasses, with errors that name the key and the line."""
import base64
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..i18n import _, course_text

ENCODED = "base64:"  # prefix of a self-test answer stored encoded in a student release
DEFAULT_TIME_LIMIT = 20.0  # seconds of a question whose entry has no `time_limit` (the other limits: sandbox/limits.py)

# libyaml's parser where PyYAML was built with it: the same nodes and line marks in a tenth of the time (`check` reads
# course.yaml before its sandbox starts)
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestError(ValueError):
    """course.yaml is missing, malformed, or names something that does not exist."""


@dataclass(frozen=True)
class SelfTest:
    """One self-assessment question with its model answer."""

    question: str
    answer: str


@dataclass(frozen=True)
class Question:
    """One graded question of the course."""

    number: int
    slug: str
    title: str
    file: str
    functions: tuple[str, ...]
    points: float
    requires: tuple[int, ...]
    hints: tuple[str, ...]
    selftest: tuple[SelfTest, ...]
    time_limit: float

    @property
    def module(self) -> str:
        """Module name inside the exercises package, e.g. q03_attention."""
        return Path(self.file).stem


VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")  # Gradescope's values of `visibility`


@dataclass(frozen=True)
class Feedback:
    """What class grading hands back to students (course.yaml's optional `feedback:`); `check` always shows
    everything."""

    reasons: bool = True  # each failed check's one-line reason, with the known mistake it matches
    values: bool = True  # small results next to the expected ones, at the end of a reason
    selftest: bool = True  # the self-test answers of the questions at full marks
    visibility: str = "visible"  # Gradescope: when students see the results


@dataclass(frozen=True)
class Course:
    """The whole manifest: a title and the questions in learner order."""

    title: str
    description: str
    questions: tuple[Question, ...]
    root: Path
    feedback: Feedback = Feedback()
    # the gradebook column (the LMS files, classroom/exports.py): never translated, so an import updates one assignment
    lms_name: str = ""

    def question(self, number: int) -> Question:
        """The question with this number (KeyError when there is none)."""
        for question in self.questions:
            if question.number == number:
                return question
        raise KeyError(number)

    @property
    def numbers(self) -> list[int]:
        """Question numbers in learner order."""
        return [q.number for q in self.questions]

    @property
    def max_score(self) -> float:
        """Sum of the points of every question."""
        return sum(q.points for q in self.questions)


def decode_answer(text: str) -> str:
    """A self-test answer as written, whether stored plain or base64-encoded."""
    if text.startswith(ENCODED):
        return base64.b64decode(text[len(ENCODED):]).decode("utf-8")
    return text


def encode_answer(text: str) -> str:
    """A self-test answer stored as `base64:<...>`, as a student release keeps it."""
    return ENCODED + base64.b64encode(text.encode("utf-8")).decode("ascii")


def course_texts(course: Course) -> list[tuple[str, str]]:
    """Every text a translator translates, with where it comes from: (text, "question 3, hint 2")."""
    texts = [(course.title, "course title"), (course.description, "course description")]
    for question in course.questions:
        where = f"question {question.number}"
        texts.append((question.title, f"{where}, title"))
        texts += [(hint, f"{where}, hint {index}") for index, hint in enumerate(question.hints, start=1)]
        for index, item in enumerate(question.selftest, start=1):
            texts += [(item.question, f"{where}, self-test question {index}"),
                      (decode_answer(item.answer), f"{where}, self-test answer {index}")]
    return [(text, where) for text, where in texts if text]


def _answer(stored: str, translate: Callable[[str], str]) -> str:
    """A self-test answer translated, stored as it came: plain, or encoded when it was encoded."""
    translated = translate(decode_answer(stored))
    return encode_answer(translated) if stored.startswith(ENCODED) else translated


class _Node:
    """A YAML node with its path in the manifest, for error messages."""

    def __init__(self, node: yaml.Node, path: str) -> None:
        self.node, self.path = node, path

    def fail(self, problem: str) -> ManifestError:
        """An error naming this node's line and path."""
        return ManifestError(
            _("course.yaml line {line}: `{path}` {problem}").format(
                line=self.node.start_mark.line + 1, path=self.path, problem=problem
            )
        )

    def mapping(self) -> dict[str, "_Node"]:
        """The node's keys and child nodes; ManifestError unless it is a mapping."""
        if not isinstance(self.node, yaml.MappingNode):
            raise self.fail(_("must be a mapping of keys to values"))
        return {k.value: _Node(v, f"{self.path}.{k.value}" if self.path else k.value) for k, v in self.node.value}

    def items(self) -> list["_Node"]:
        """The node's entries; ManifestError unless it is a list."""
        if not isinstance(self.node, yaml.SequenceNode):
            raise self.fail(_("must be a list"))
        return [_Node(item, f"{self.path}[{i}]") for i, item in enumerate(self.node.value)]

    def scalar(self, kind: type) -> object:
        """The node's value as kind (an int is accepted for a float); ManifestError otherwise."""
        if not isinstance(self.node, yaml.ScalarNode):
            raise self.fail(_("must be a single {kind}").format(kind=kind.__name__))
        value = yaml.SafeLoader("").construct_object(self.node)
        if kind is float and type(value) is int:
            value = float(value)
        if type(value) is not kind:
            raise self.fail(_("must be a {kind}, not {value}").format(kind=kind.__name__, value=repr(self.node.value)))
        return value

    def texts(self) -> tuple[str, ...]:
        """One text or a list of texts, stripped."""
        if isinstance(self.node, yaml.ScalarNode):
            return (str(self.scalar(str)).strip(),)
        return tuple(str(item.scalar(str)).strip() for item in self.items())


def _require(fields: dict[str, _Node], key: str, where: _Node) -> _Node:
    if key not in fields:
        raise where.fail(_("lacks the key `{key}`").format(key=key))
    return fields[key]


def _question(node: _Node, translate: Callable[[str], str]) -> Question:
    fields = node.mapping()
    get = lambda key: _require(fields, key, node)  # noqa: E731
    selftest = tuple(
        SelfTest(
            translate(str(_require(e, "question", item).scalar(str)).strip()),
            _answer(str(_require(e, "answer", item).scalar(str)).strip(), translate),
        )
        for item in (get("selftest").items() if "selftest" in fields else [])
        for e in [item.mapping()]
    )
    question = Question(
        number=int(get("number").scalar(int)),
        slug=str(get("slug").scalar(str)),
        title=translate(str(get("title").scalar(str))),
        file=str(get("file").scalar(str)),
        functions=tuple(str(f.scalar(str)) for f in get("functions").items()),
        points=float(get("points").scalar(float)),
        requires=tuple(int(r.scalar(int)) for r in get("requires").items()) if "requires" in fields else (),
        hints=tuple(translate(hint) for hint in get("hint").texts()) if "hint" in fields else (),
        selftest=selftest,
        time_limit=float(fields["time_limit"].scalar(float)) if "time_limit" in fields else DEFAULT_TIME_LIMIT,
    )
    expected_file = f"exercises/q{question.number:02d}_{question.slug}.py"
    if question.file != expected_file:
        raise fields["file"].fail(
            _("must be {expected} (from number and slug), not {found}").format(
                expected=repr(expected_file), found=repr(question.file)
            )
        )
    return question


def _feedback(node: _Node) -> Feedback:
    """The optional `feedback:` mapping: reasons, values, selftest (booleans) and visibility (Gradescope's)."""
    fields = node.mapping()
    unknown = sorted(set(fields) - {"reasons", "values", "selftest", "visibility"})
    if unknown:
        raise fields[unknown[0]].fail(_("is not a feedback setting (reasons, values, selftest, visibility)"))
    flags = {key: bool(fields[key].scalar(bool)) for key in ("reasons", "values", "selftest") if key in fields}
    visibility = str(fields["visibility"].scalar(str)) if "visibility" in fields else "visible"
    if visibility not in VISIBILITIES:
        raise fields["visibility"].fail(
            _("must be one of {choices}, not {value}").format(choices=", ".join(VISIBILITIES), value=repr(visibility))
        )
    return Feedback(**flags, visibility=visibility)


def load_course(root: Path, translate: Callable[[str], str] = course_text) -> Course:
    """Parse and check root/course.yaml, its texts passed through translate (the current language's by default).

    Raise ManifestError naming the key and line on any problem.
    """
    path = root / "course.yaml"
    try:
        document = yaml.compose(path.read_text(encoding="utf-8"), Loader=FAST_LOADER)
    except FileNotFoundError:
        raise ManifestError(
            _("no course.yaml in {root}: run the command from the kit's folder").format(root=root)
        ) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, 'problem', error)
        if mark:
            raise ManifestError(
                _("course.yaml line {line}: not valid YAML ({problem})").format(line=mark.line + 1, problem=problem)
            ) from None
        raise ManifestError(_("course.yaml: not valid YAML ({problem})").format(problem=problem)) from None
    if document is None:
        raise ManifestError(_("course.yaml is empty"))
    top = _Node(document, "").mapping()
    if "format_version" in top and top["format_version"].scalar(int) != 1:
        raise top["format_version"].fail(_("must be 1: this grader reads format 1"))
    questions_node = _require(top, "questions", _Node(document, "course"))
    questions = tuple(_question(item, translate) for item in questions_node.items())
    seen: set[int] = set()
    for item, question in zip(questions_node.items(), questions):
        if question.number in seen:
            raise item.fail(_("repeats question number {number}").format(number=question.number))
        unknown = [r for r in question.requires if r not in seen]
        if unknown:
            raise item.fail(_("requires {unknown}, which must be earlier questions").format(unknown=unknown))
        seen.add(question.number)
    title = str(_require(top, "title", _Node(document, "course")).scalar(str))
    return Course(
        title=translate(title),
        description=translate(str(top["description"].scalar(str)).strip()) if "description" in top else "",
        questions=questions,
        root=root,
        feedback=_feedback(top["feedback"]) if "feedback" in top else Feedback(),
        lms_name=_lms_name(top["lms_name"]) if "lms_name" in top else title,
    )


def _lms_name(node: "_Node") -> str:
    """course.yaml's `lms_name:`, the gradebook column's name: a text that is not empty."""
    name = str(node.scalar(str)).strip()
    if not name:
        raise node.fail(_("must name the gradebook column (the assignment's name in Canvas or Moodle), not be empty"))
    return name


def find_root(start: Path) -> Path:
    """The nearest folder at or above start holding course.yaml, else the kit's own folder."""
    for folder in [start, *start.parents]:
        if (folder / "course.yaml").exists():
            return folder
    return Path(__file__).resolve().parents[2]
