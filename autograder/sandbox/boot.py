"""A child's first lines, under every backend: find the packages where the grader found them, then load the child's side
and the kernel's walls.

Run by path (runpy.run_path) from a backend's worker script, which Python starts isolated (`-I`: no current folder,
no PYTHON* variables, no user site): AUTOGRADER_SYS_PATH, set by the grader, lists the grader's own sys.path (the
kit's folder left out), so that torch installed with `pip install --user`, in a conda environment or on PYTHONPATH
is found as it was by the grader.
"""
import importlib.util
import json
import os
import site
import sys

PATH_VARIABLE = "AUTOGRADER_SYS_PATH"


def extend_path() -> None:
    """Add the grader's sys.path entries this interpreter lacks, as site folders (their .pth files processed)."""
    for entry in json.loads(os.environ.pop(PATH_VARIABLE, "[]")):
        if entry not in sys.path and os.path.isdir(entry):
            site.addsitedir(entry)


def load_limits() -> object:
    """The limits (autograder/sandbox/limits.py), imported by path as `_limits`, where the child's side reads them."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limits.py")
    spec = importlib.util.spec_from_file_location("_limits", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["_limits"] = module
    spec.loader.exec_module(module)
    return module


def load_child() -> object:
    """The child's side of the sandbox (autograder/sandbox/child), imported by path as `_child`, after its limits
    (load_limits), its classes sealed: never the grader's package."""
    load_limits()
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")
    spec = importlib.util.spec_from_file_location(
        "_child", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["_child"] = module
    spec.loader.exec_module(module)
    for name in module.__all__:
        importlib.import_module(f"_child.{name}")
    # its classes sealed (child/seal.py): no student code reaches a module dict of the child's side through them
    own = [sys.modules[name] for name in list(sys.modules) if name.startswith("_child.") or name == "_codec"]
    module.seal.seal(own)
    return module


def load_walls() -> object:
    """The kernel's walls (autograder/sandbox/walls.py: Landlock, seccomp), imported by path as `_walls`, after
    load_child."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "walls.py")
    return sys.modules["_child"].serve.load_module("_walls", path)
