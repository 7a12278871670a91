"""The hidden suites: one pytest module per question, test_<exercise module>.py, run against the student's code in
the sandbox."""
