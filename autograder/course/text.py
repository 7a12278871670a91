"""A report's view as the text a terminal shows: the CLI's table, and Gradescope's output."""
import shutil
import textwrap

from .results import CaseResult
from .view import REASON, Line, ReportView, failure_lines


def wrap(text: str, indent: str = "  ", width: int | None = None) -> str:
    """text wrapped to the terminal (at most 110 columns), first line at indent, the rest 2 further in; never at a
    hyphen."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                   break_on_hyphens=False)) or indent


def failed_lines(tests: list[CaseResult], width: int) -> list[str]:
    """A line per failed check, as the table shows them under a question (an error met by several checks said once)."""
    return [row for line in failure_lines(tests) for row in _line_text(line, width)]


INDENTS = {REASON: "        "}  # a line's indent under its question's row, by kind; the others get DEFAULT_INDENT
DEFAULT_INDENT, ITEM_INDENT = "      ", "          "


def _line_text(line: Line, width: int) -> list[str]:
    """One line of the view as the terminal shows it, wrapped; a grouped failure's inputs below it, one a line."""
    return [wrap(line.text, INDENTS.get(line.kind, DEFAULT_INDENT), width)] + [
        wrap(f"- {item}", ITEM_INDENT, width) for item in line.items
    ]


def text(view: ReportView, width: int | None = None) -> str:
    """The view as the table a student reads in the terminal."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    title_width = max((len(q.title) for q in view.questions), default=10)
    question_heading, score_heading, status_heading = view.columns
    lines = [view.heading, "", f"  {'#':>2}  {question_heading:<{title_width}}  {score_heading:>11}  {status_heading}"]
    for question in view.questions:
        lines.append(
            f"  {question.number:>2}  {question.title:<{title_width}}  {question.score:>11}  {question.status_text}"
        )
        lines += [row for line in question.lines for row in _line_text(line, width)]
    lines += ["", "  " + view.total]
    for item in view.selftests:
        lines += ["", "  " + item.heading] + [wrap(row, "    ", width) for pair in item.items for row in pair]
    if view.unlocked:
        lines += ["", wrap(view.unlocked, "  ", width)]
    return "\n".join(lines)
