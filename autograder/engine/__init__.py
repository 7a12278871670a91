"""The grading engine: the hidden pytest suites run with the kit's plugin, the student's code behind a proxy."""
