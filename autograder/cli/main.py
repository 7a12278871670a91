"""The command line: check, list, hint, selftest (and the instructor and maintainer commands)."""
import argparse
import difflib
import json
import os
import sys
import traceback
from pathlib import Path

from ..classroom.arguments import add_arguments, allow_weak_isolation
from ..course.manifest import Course, ManifestError, decode_answer, find_root, load_course
from ..course.results import PASSED, Report
from ..i18n import LANGUAGES, _, set_language
from ..usage import UsageError
from ..course.text import wrap

USAGE_ERROR, NOT_ALL_PASSED, INTERRUPTED = 2, 1, 130  # 1 also when the grader itself fails
# the commands that need torch (its version is checked first)
GRADING = ("check", "watch", "plot", "grade", "gradescope", "dev-check")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        raise UsageError(_("{message} (try `python -m autograder --help`)").format(message=message))

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """argparse's check of a choice, which also names the closest choice when there is one (`chek`: `check`)."""
        choices = [str(choice) for choice in action.choices or ()]
        close = (
            difflib.get_close_matches(str(value), choices, n=1)
            if action.choices is not None and value not in action.choices
            else []
        )
        if close and isinstance(action, argparse._SubParsersAction):  # noqa: SLF001 - the class argparse gives sub-commands
            raise UsageError(
                _(
                    "there is no command {value}: did you mean `python -m autograder {close}`? (`python -m autograder "
                    "--help` lists them)"
                ).format(value=repr(value), close=close[0])
            )
        if close:
            raise UsageError(
                _("{value} is not a choice of {option}: did you mean {close}? (the choices: {choices})").format(
                    value=repr(value),
                    option="/".join(action.option_strings),
                    close=repr(close[0]),
                    choices=", ".join(map(repr, choices)),
                )
            )
        super()._check_value(action, value)


def _language_option(parser: argparse.ArgumentParser, default: object) -> None:
    """Add --lang to parser: the main parser keeps default, each sub-command leaves the main parser's value alone."""
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=default,
        help=_("language of the texts and messages (default: the locale's, else en)"),
    )


def _chosen_language(argv: list[str] | None) -> str | None:
    """The --lang given anywhere on the command line, read before the parser's texts are written in it."""
    early = _Parser(add_help=False)
    _language_option(early, None)
    return early.parse_known_args(argv)[0].lang


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m autograder", description=_("Grade the attention exercises."))
    _language_option(parser, None)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=summary)
        _language_option(sub, argparse.SUPPRESS)
        return sub

    check = command("check", _("grade questions N (all when none are given)"))
    check.add_argument("numbers", nargs="*", metavar="N")
    check.add_argument("--json", action="store_true", help=_("print the report as one JSON object"))
    check.add_argument("--solutions", action="store_true", help=_("grade solutions/ instead of exercises/"))
    command("list", _("questions, points and current status"))
    hint = command("hint", _("the next hint of question N, from a nudge to a pointer"))
    hint.add_argument("number", metavar="N")
    hint.add_argument("--all", action="store_true", help=_("every hint of question N at once"))
    command("selftest", _("the self-test questions of N")).add_argument("number", metavar="N")
    plot = command("plot", _("draw question N's weights or timings as PNG files and print their paths"))
    plot.add_argument("number", metavar="N")
    plot.add_argument("--solutions", action="store_true", help=_("draw solutions/ instead of exercises/"))
    plot.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help=_("where the PNG files go (default: plots/)")
    )
    watch = command("watch", _("re-grade the current question at every save, question after question"))
    watch.add_argument(
        "number", nargs="?", metavar="N", help=_("the question to start at (default: the first not at full marks)")
    )
    course = command("nbgrader", _("write an nbgrader course folder for this kit"))
    course.add_argument("course_dir", type=Path)
    course.add_argument("--assignment", default="attention")
    batch = command("grade", _("grade a class: a folder of students (DIR --out OUT), or nbgrader's submissions"))
    add_arguments(batch)
    gradescope = command("gradescope", _("write an autograder zip for Gradescope"))
    gradescope.add_argument("out_zip", type=Path, metavar="OUT.zip")
    allow_weak_isolation(gradescope)
    command("release", _("write a learner repository (main: stubs, solutions branch)")).add_argument(
        "out_dir", type=Path
    )
    command("dev-check", _("maintainer's guard: manifest, stubs, solutions, suites"))
    new = command("new", _("maintainer: add question N, its files and course.yaml entry written for you to fill in"))
    new.add_argument("number", type=int, metavar="N", help=_("the new question's number, which `check N` will take"))
    new.add_argument("slug", metavar="SLUG", help=_("snake_case name: the files are qNN_SLUG.py, the function SLUG"))
    new.add_argument("--title", default=None, help=_("the title students read (default: made from SLUG)"))
    new.add_argument("--points", type=float, default=10, help=_("the question's points (default: 10)"))
    return parser


def _numbers(course: Course, texts: list[str]) -> list[int]:
    numbers = []
    for text in texts:
        if not text.isdigit() or int(text) not in course.numbers:
            raise UsageError(
                _("there is no question {text}: valid numbers are {first}-{last}").format(
                    text=repr(text), first=course.numbers[0], last=course.numbers[-1]
                )
            )
        if int(text) not in numbers:
            numbers.append(int(text))
    return numbers or course.numbers


def _package(course: Course, folder: str) -> Path:
    """course.root/folder, which must be a package (exercises/ or solutions/)."""
    package = course.root / folder
    if not (package / "__init__.py").exists():
        raise UsageError(
            _("no {folder}/ package in {root}: run the command from the kit's folder").format(
                folder=folder, root=course.root
            )
        )
    return package


def _check(course: Course, args: argparse.Namespace) -> int:
    from .progress import keep_output, last_statuses, remember
    from .report import render
    from ..engine.run import grade

    folder = "solutions" if args.solutions else "exercises"
    package = _package(course, folder)
    numbers = _numbers(course, args.numbers)
    previous = None if args.solutions else last_statuses(course)  # solutions/ has no history: only named questions
    report = grade(course, package, numbers, notes=not args.json)  # JSON: only what is graded
    if not args.solutions:
        remember(course, report)
    keep_output(course, report)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(render(report, course, f"{folder}/", _answers_to_show(report, numbers if args.numbers else [], previous)))
    return 0 if report.all_passed else NOT_ALL_PASSED


def _answers_to_show(report: Report, named: list[int], previous: dict[int, str] | None) -> list[int]:
    """Questions at full marks whose self-test answers `check` prints: those named, and those just at full marks.

    previous: each question's status at the check before this one (None: no history, only the named ones show).
    """
    return [
        q.number
        for q in report.questions
        if q.status == PASSED and (q.number in named or (previous is not None and previous.get(q.number) != PASSED))
    ]


def _list(course: Course) -> int:
    from .progress import status_of

    width = max(len(q.title) for q in course.questions)
    question, points, status = _("Question"), _("Points"), _("Status")
    print(f"{course.title}\n\n  {'#':>2}  {question:<{width}}  {points:>6}  {status}")
    for question in course.questions:
        print(
            f"  {question.number:>2}  {question.title:<{width}}  {question.points:>6g}  {status_of(course, question)}"
        )
    return 0


def _hint(course: Course, number: str, everything: bool) -> int:
    """The hints of question number seen so far and the next one (all of them with everything)."""
    from .progress import hints_to_show

    question = course.question(_numbers(course, [number])[0])
    print(_("Hints for question {number}, {title}:").format(number=question.number, title=question.title))
    shown = hints_to_show(course, question, everything)
    for index, hint in enumerate(question.hints[:shown], start=1):
        print(wrap(f"{index}. {hint}"))
    if shown < len(question.hints):
        print(
            wrap(
                _(
                    "(hint {shown} of {total}: `python -m autograder hint {number}` again gives the next, `python -m "
                    "autograder hint {number} --all` all of them)"
                ).format(shown=shown, total=len(question.hints), number=question.number)
            )
        )
    return 0


def _selftest(course: Course, number: str) -> int:
    from .progress import opened

    question = course.question(_numbers(course, [number])[0])
    # some check of exercises/ was at full marks, however the file changed since
    unlocked = question.number in opened(course)
    if unlocked:
        print(
            _("Self-test for question {number}, {title}. Answer in your head or type it, then compare.").format(
                number=question.number, title=question.title
            )
        )
    else:
        print(
            wrap(
                _(
                    "Self-test for question {number}, {title}. Think about these questions as you work; their model "
                    "answers open once `python -m autograder check {number}` gives full marks."
                ).format(number=question.number, title=question.title),
                "",
            )
        )
    for index, item in enumerate(question.selftest, start=1):
        print("\n" + wrap(f"Q{index}. {item.question}", ""))
        if unlocked and sys.stdin.isatty():
            try:
                input(_("Your answer (Enter when ready): "))
            except EOFError:
                pass
        if unlocked:
            print(wrap(_("Model answer: {answer}").format(answer=decode_answer(item.answer)), ""))
    return 0


def _tolerant_output() -> None:
    """Make stdout and stderr replace what their encoding cannot show (a student's emoji on a cp1252 pipe, French under
    LC_ALL=C) instead of failing the whole report on it."""
    for stream in (sys.stdout, sys.stderr):
        if (
            stream is not None
            and getattr(stream, "errors", None) in ("strict", "surrogateescape")
            and hasattr(stream, "reconfigure")
        ):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):  # closed, or a stream that cannot change now: leave it as it is
                pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m autograder`; returns the exit status."""
    _tolerant_output()
    try:
        set_language(_chosen_language(argv))
        args = _parser().parse_args(argv)
        if args.command in GRADING:
            from ..torch_version import installed_numpy, installed_torch, torch_problem

            problem = torch_problem(installed_torch(), installed_numpy())
            if problem:
                raise UsageError(problem)
        course = load_course(find_root(Path.cwd()))
        if args.command == "check":
            return _check(course, args)
        if args.command == "list":
            return _list(course)
        if args.command == "hint":
            return _hint(course, args.number, args.all)
        if args.command == "selftest":
            return _selftest(course, args.number)
        if args.command == "plot":
            from ..plots import PICTURES

            if args.number not in [str(n) for n in PICTURES]:
                raise UsageError(
                    _("question {number} has no picture: questions {numbers} have one").format(
                        number=repr(args.number), numbers=", ".join(map(str, PICTURES))
                    )
                )
            from ..plots.make import main as plot

            return plot(args, course, _package(course, "solutions" if args.solutions else "exercises"))
        if args.command == "watch":
            from .watch import watch

            return watch(
                course, _package(course, "exercises"), _numbers(course, [args.number])[0] if args.number else None
            )
        if args.command == "nbgrader":
            from ..nbgrader.course import write_course

            return write_course(course, args.course_dir, args.assignment)
        if args.command == "grade":
            if (args.dir is None) == (args.course_dir is None) or (args.dir is not None and args.out is None):
                raise UsageError(_("give either DIR --out OUT (a folder of students) or --nbgrader COURSE_DIR"))
            if args.dir is not None:
                from ..classroom.batch import main as grade_folder

                return grade_folder(args, course)
            from ..classroom.nbgrader_class import grade_class

            return grade_class(course, args)
        if args.command == "gradescope":
            from ..classroom.gradescope import main as gradescope_main

            return gradescope_main(args, course)
        if args.command == "release":
            from ..maintainer.release import write_release

            return write_release(course, args.out_dir)
        if args.command == "new":
            from ..maintainer.new import NewQuestionError, new_question

            try:
                return new_question(course, args.number, args.slug, args.title, args.points)
            except NewQuestionError as error:
                raise UsageError(str(error)) from None
        from ..maintainer.devcheck import dev_check

        return dev_check(course)
    except (UsageError, ManifestError) as error:
        print(_("autograder: {error}").format(error=error), file=sys.stderr)
        return USAGE_ERROR
    # Ctrl-C, or SIGTERM / SIGHUP where a command stops on them (engine/stopping.py)
    except KeyboardInterrupt as interrupt:
        from ..engine.stopping import exit_status

        print(_("autograder: interrupted"), file=sys.stderr)
        return exit_status(interrupt, INTERRUPTED)
    except BrokenPipeError:  # the reader (say `| head`) stopped early: nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # noqa: BLE001 - a fault of the grader itself: one line, details in a file
        from ..engine.grader_errors import keep_trace

        details = keep_trace(traceback.format_exc())
        print(
            _("autograder: internal error ({error}); please report it with {details}").format(
                error=f"{type(error).__name__}: {error}", details=details
            ),
            file=sys.stderr,
        )
        return NOT_ALL_PASSED
