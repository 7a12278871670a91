"""The maintainer's tools: a new question's files (`new`), stubs made from the solutions, dev-check, the learner
release."""
