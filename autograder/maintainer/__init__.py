"""The maintainer's tools: stubs made from the solutions, dev-check, the learner release."""
