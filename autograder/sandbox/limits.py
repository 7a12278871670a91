"""Every limit the grader puts on a student's code, and the formulas built on them: their one home.

A leaf of plain constants that imports nothing: the grader's side imports it as `autograder.sandbox.limits`, the
child's side loads it by path as `_limits` (boot.py) before any student code runs, and nbgrader's configuration, the
bench, the messages that quote a limit and the docs' test (tests/test_limits_docs.py) all read it. A question's own
time limit is per question: its `time_limit` in course.yaml (course/manifest.py's DEFAULT_TIME_LIMIT when it has none).
"""
MEMORY_BYTES = 4 << 30  # address-space limit of a child
OUTPUT_BYTES = 8 << 20  # largest file a child may write, its captured output included
OUTPUT_KILLED_BYTES = 2 * OUTPUT_BYTES  # where no kernel limits a file (portable backend): output past this is killed
DISK_BYTES = 64 << 20  # the most a question's files may take in its folder, all together
DISK_ENTRIES = 10_000  # the most files and folders a question may make in its folder
ANSWER_BYTES = 64 << 20  # largest answer the grader reads back
# Python threads a child may run at once besides its main one, on every platform and under either backend: a count of
# the question's own, so that a thread bomb fails in its question (the Linux backend also puts it in RLIMIT_NPROC).
CHILD_THREADS = 64
# Descriptors a child may hold open at once (RLIMIT_NOFILE, soft and hard, wherever `resource` exists: not on Windows),
# a bound of the question's own whatever the grader's limit: past it the child's own code gets "Too many open files".
# A child of the solutions holds 6 to 8 (its channel, its output, Python's and torch's), so this is 8 times that; it
# also caps its pipes (16 pages each, counted per user against fs.pipe-user-pages-soft, 16,384 pages) at 32: 512
# pages, where the grader's own limit let one child take the whole quota and shrink every new pipe of its user.
CHILD_FILES = 64
# Signals a child may queue on top of those its user has queued at its start (RLIMIT_SIGPENDING, soft and hard, on Linux
# under both backends: walls.hold_signals). The kernel counts them per user: a child that blocks a real-time signal and
# raises it until refused took the user's whole quota (96,362 on a test machine, in 0.3 s), and while it ran every
# other process of the user, the grader's and a classmate's, got EAGAIN from timer_create and sigqueue. Python and torch
# queue none; a real-time signal the C library sends within a process (a thread's cancellation) takes one a while.
CHILD_SIGNALS = 64
CPU_GRACE_SECONDS = 2  # a child's CPU-time rlimit is its time limit plus this: the grader stops it first
STARTUP_SECONDS = 120  # the most a child may take to start (it imports torch) before it is given up
POLL_SECONDS = 0.25  # the longest wait on a child between two looks at its time, memory and disk
# The time limit is on the time charged to a child: its time on a core (and, on Linux, the time it sleeps or blocks),
# never the time it only waited for a core, so a busy machine charges the same code the same. The wall clock stops a
# child at WALL_FACTOR times its limit whatever it was charged: the solutions use at most 3 % of their limits, so an
# answer five times slower than them keeps its score as long as it gets under a tenth of a core, and an endless loop
# on a busy machine ends after twice its limit (it was 3 times: 58 s for a 20 s limit).
WALL_FACTOR = 2
OUTPUT_SHOWN = 2000  # characters of the child's captured output kept for the report
STALE_SECONDS = 600  # a left-behind folder is removed once untouched this long (a sandbox makes one per question)
# seconds an nbgrader test cell may take beyond the sandbox's own bound: the grading process's start, the oracle's work
CELL_MARGIN = 120


def wall_seconds(time_limit: float) -> float:
    """The most a question with this time limit may take on the wall clock: its child's start, then WALL_FACTOR times
    it."""
    return STARTUP_SECONDS + WALL_FACTOR * time_limit


def time_left(time_limit: float, charged: float, spent: float, waited: float) -> float:
    """Seconds a question's child may still run (at most 0 when it is out of time), under both backends: its limit less
    the time charged to it, WALL_FACTOR times its limit less the wall time since its question started (spent), and
    wall_seconds less the wall time since the grader first waited for it, its start included (waited)."""
    return min(time_limit - charged, WALL_FACTOR * time_limit - spent, wall_seconds(time_limit) - waited)


def cell_timeout(longest_time_limit: float) -> int:
    """Seconds nbgrader gives a test cell when the course's longest `time_limit` is this: the most the sandbox may take
    over a question on the wall clock (a loaded machine charges it the same, so a shorter cell timeout would cut a
    question `check` scores and give it 0), and CELL_MARGIN."""
    return int(wall_seconds(longest_time_limit) + CELL_MARGIN)
