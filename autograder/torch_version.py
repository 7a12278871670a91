"""The oldest torch the kit grades with, checked from the installed distribution's metadata (torch itself is not imported)."""
import importlib.util
import re
from importlib import metadata

from .i18n import _

TORCH_FLOOR = (2, 4)  # pyproject.toml's torch>=2.4: .ci/matrix measured 2.1 and 2.2 grading nothing, 2.3 refusing torch.utils.benchmark


def installed_torch() -> str | None:
    """The version of the torch distribution installed ("2.13.0+cpu"); "" when torch imports but has no metadata (a build
    from source), None when there is none."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "" if importlib.util.find_spec("torch") is not None else None


def torch_problem(version: str | None) -> str | None:
    """One line saying why torch version (from installed_torch) cannot grade, and what to do; None when it can."""
    floor = ".".join(map(str, TORCH_FLOOR))
    if version is None:
        return _("torch is not installed: install it first (the README gives the line for your system), then try again")
    found = re.match(r"(\d+)\.(\d+)", version)  # "" or an odd version string: let it try
    if found is None or tuple(map(int, found.groups())) >= TORCH_FLOOR:
        return None
    return _("this kit needs torch {floor} or newer, and torch {version} is installed: upgrade it (`pip install --upgrade torch`, "
             "or the README's line for your system), then try again").format(floor=floor, version=version)
