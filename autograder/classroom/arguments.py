"""`grade DIR --out OUT`'s arguments: what they are, and the checks that make a bad command line a usage error (exit
status 2)."""
import argparse
import datetime
import os
from pathlib import Path

from ..i18n import _
from ..usage import UsageError
from .intake import Entry, student_key


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments main() reads, for the command line's `grade` subcommand."""
    parser.add_argument(
        "dir", type=Path, metavar="DIR", help="the class folder: one folder, repository or notebook per student"
    )
    parser.add_argument("--out", type=Path, required=True, metavar="OUT", help="where the reports and grades.csv go")
    parser.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="worker processes (default: the number of cores)"
    )
    parser.add_argument(
        "--force", action="store_true", help="grade every student again, even those whose files have not changed"
    )
    parser.add_argument(
        "--scheduler", default=None, metavar="ADDRESS", help="grade on the Dask cluster whose scheduler is at ADDRESS"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--student", action="append", default=None, metavar="NAME", help="grade only this student again (repeatable)"
    )
    parser.add_argument(
        "--deadline", default=None, metavar="DATE", help="grade each repository's last commit before DATE"
    )
    parser.add_argument(
        "--allow-weak-isolation",
        action="store_true",
        help="grade even where the kernel walls around each student's code (seccomp, Landlock) cannot be put up",
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
