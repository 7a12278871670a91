"""`python -m autograder plot N`: pictures of a question's results as PNG files (matplotlib, headless).

Each picture is gathered as a small data object of arrays (the student's values come from the sandboxed child,
the expected ones from reference/), then drawn by that object's figure(). This module stays light: `check`
reads PICTURES to say which questions have a picture, without importing matplotlib.
"""

PICTURES = {
    3: "your attention weights beside the reference's",
    5: "each head's weights, yours beside the reference's",
    7: "the weights across decoder states, with and without tanh",
    9: "your real timings against T on log-log axes, with the fitted slope",
    10: "the trained copy-task model's heads",
}
