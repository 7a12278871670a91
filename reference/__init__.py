"""The trusted oracle: the grader's own answers, built on PyTorch's operators. Imported only by the grader."""
