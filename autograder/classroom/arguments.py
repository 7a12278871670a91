"""`grade DIR --out OUT`'s arguments: what they are, and the checks that make a bad command line a usage error (exit
status 2)."""
import argparse
import datetime
import os
from pathlib import Path

from ..i18n import _
from ..usage import UsageError
from .exports import described
from .intake import Entry, student_key


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `grade` command's arguments: a class folder (DIR --out OUT) or an nbgrader course (--nbgrader COURSE_DIR)."""
    parser.add_argument(
        "dir", nargs="?", type=Path, metavar="DIR", help=_("one folder, git repository or notebook per student")
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="OUT",
        help=_(
            "where the reports, the class summary and the gradebook files go ({files}; "
            "with --nbgrader: COURSE_DIR/reports/ASSIGNMENT by default)"
        ).format(files="; ".join(described())),
    )
    parser.add_argument(
        "--jobs", type=int, default=None, metavar="N", help=_("grading processes (default: the number of cores)")
    )
    parser.add_argument("--force", action="store_true", help=_("regrade students whose files have not changed"))
    parser.add_argument(
        "--scheduler", default=None, metavar="ADDRESS", help=_("grade on a Dask cluster (tcp://host:8786)")
    )
    parser.add_argument("--quiet", action="store_true", help=_("no progress bar"))
    parser.add_argument("--nbgrader", dest="course_dir", type=Path, default=None, metavar="COURSE_DIR")
    parser.add_argument("--assignment", default="attention")
    parser.add_argument(
        "--student",
        action="append",
        default=None,
        metavar="NAME",
        help=_("grade only this student again, keeping the others' results (repeatable)"),
    )
    parser.add_argument(
        "--deadline",
        default=None,
        metavar="DATE",
        help=_("grade each git repository's last commit before DATE (2026-12-01T18:00+01:00) and record lateness"),
    )
    allow_weak_isolation(parser)


def allow_weak_isolation(parser: argparse.ArgumentParser) -> None:
    """--allow-weak-isolation, of `grade` and `gradescope`: a class graded without the kernel walls, knowingly."""
    parser.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help=_("grade even where the kernel walls around each student's code (seccomp, Landlock) cannot be put up"),
    )


def check_args(args: argparse.Namespace) -> tuple[Path, Path, int]:
    """(the class folder, OUT, the number of worker processes) of the command line; UsageError when one cannot be."""
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(
            _(
                "{folder} is not a folder: give the class folder, with one folder, repository or notebook per student"
            ).format(folder=folder)
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(_("--out {out} is a file: give a folder for the reports").format(out=out))
    jobs = getattr(args, "jobs", None)
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    if jobs < 1:
        raise UsageError(
            _("--jobs {jobs}: give at least 1 worker process (or leave --jobs out: one per core)").format(jobs=jobs)
        )
    return folder.resolve(), out.resolve(), jobs


def parse_deadline(text: str) -> str:
    """--deadline's DATE as ISO 8601 with its offset: 2026-12-01T18:00+01:00, or local time without an offset; a date
    alone is the end of that day."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            _(
                "--deadline {date} is not a date: write it as 2026-12-01 or 2026-12-01T18:00 (local time) or "
                "2026-12-01T18:00+01:00"
            ).format(date=text)
        ) from None
    if len(text.strip()) == len("2026-12-01"):
        moment = moment.replace(hour=23, minute=59, second=59)
    return (moment if moment.tzinfo else moment.astimezone()).isoformat()


def chosen(entries: list[Entry], students: list[str] | None, folder: Path) -> list[Entry]:
    """The entries --student names (all when it is not given); a name with no entry is a usage error."""
    if not students:
        return entries
    wanted = {student_key(name): name for name in students}
    unknown = sorted(set(wanted) - {student_key(entry.student) for entry in entries})
    if unknown:
        raise UsageError(
            _("--student {names}: no such entry in {folder}").format(
                names=", ".join(wanted[key] for key in unknown), folder=folder
            )
        )
    return [entry for entry in entries if student_key(entry.student) in wanted]
