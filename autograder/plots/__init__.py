"""`python -m autograder plot N`: pictures of a question's results as PNG files (matplotlib, headless).

Each picture is gathered as a small data object of arrays (the student's values come from the sandboxed child,
the expected ones from reference/), then drawn by that object's figure(). This module stays light: `check`
reads PICTURES to say which questions have a picture, without importing matplotlib.
"""

from ..i18n import N_

PICTURES = {  # translated where shown
    3: N_("your attention weights beside the reference's"),
    5: N_("each head's weights, yours beside the reference's"),
    7: N_("the weights across decoder states, with and without tanh"),
    9: N_("your real timings against T on log-log axes, with the fitted slope"),
    10: N_("the trained copy-task model's heads"),
}
