"""Every status the kit writes into its reports, declared once: a question's and a class entry's.

A leaf (it imports only i18n's N_). The values are the course contract's, English in `check --json`, grades.csv and the
class's report files, and never change; the reports show them in the reader's language through _().
"""
from .i18n import N_

# a question's status: the contract's `status` in --json
PASSED, FAILED, NOT_ATTEMPTED = N_("passed"), N_("failed"), N_("not attempted")
ERROR, TIMEOUT, CRASHED = N_("error"), N_("timeout"), N_("crashed")
FLAGGED = N_("flagged")  # 0 points: the code reaches into the grader, for the instructor to review
STOPPED = (ERROR, TIMEOUT, CRASHED)  # the question's code stopped before its checks ran to their end
# a class entry's status (grades.csv's `status`); GRADER_ERROR is also the report key of an entry the grader failed on
GRADED, LATE, UNREADABLE, GRADER_ERROR = "graded", "late", "unreadable", "grader_error"
