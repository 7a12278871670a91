"""The code that runs in the sandboxed child beside the student's: it uses torch only, never the grader.

Every backend loads this package as `_child`, by path, before any student code runs: guard.py and serve.py are the
child's side of the sandbox (the audit hook, the frames, the request loop), the rest serves the requests. The package
imports none of them itself: boot.py imports each one in the child, while the grader, which reads guard.py's constants
(walls.py), must not pay for torch (backward.py imports it) before its child has started.
"""
__all__ = [
    "backward", "clock", "forbid_table", "forbidden", "guard", "helpers", "hidden", "plain", "seal", "serve", "session"
]
