"""The grader behind `python -m autograder`: manifest, sandboxed worker, hidden suites, reports."""
