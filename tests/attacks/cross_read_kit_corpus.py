# attack: reads a right answer of its question from the kit's own test corpus (tests/corpus/right/, in every checkout of the kit an instructor grades with: a folder Landlock's allowlist opened, as it opened the whole kit but its hidden folders), found through the kit's path in its own command line, and runs it in place of its own code: full marks without writing the answer; imports and answers right only when the read worked
# expect: module=q01_causal_mask status=error match=Permission denied
# path: sandbox grade-dir
"""Question 1, answered by the kit's own corpus."""
import os


def kit_root() -> str:
    """The kit's folder: the zygote's program, <kit>/autograder/sandbox/linux/worker.py, is in this process's command
    line."""
    with open("/proc/self/cmdline", "rb") as handle:
        words = handle.read().split(b"\0")
    program = next(os.fsdecode(w) for w in words if w.endswith(b"worker.py"))
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(program))))


def attack() -> None:
    """The first right answer of question 1 in tests/corpus/right/, run in this module's namespace."""
    right = os.path.join(kit_root(), "tests", "corpus", "right")
    found = sorted(name for name in os.listdir(right) if name.startswith("q01_"))
    with open(os.path.join(right, found[0]), encoding="utf-8") as handle:
        source = handle.read()
    exec(compile(source, "answer", "exec"), globals())


attack()  # at import: every check of the question meets it
