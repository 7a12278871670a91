"""The oldest torch the kit grades with, and the numpy it needs, checked from the installed packages' version files,
else their distributions' metadata (torch itself is not imported)."""
import importlib.util
import re

from .i18n import _

# pyproject.toml's torch>=2.2: PyTorch's last build for Intel Macs is 2.2.2; .ci/matrix grades its floor cells
TORCH_FLOOR = (2, 2)
# the first torch built against numpy 2: an older one cannot hand tensors to numpy 2 (tensor.numpy() fails)
NUMPY_2_TORCH = (2, 4)


def installed_torch() -> str | None:
    """The version of the torch installed ("2.13.0+cpu"); "" when torch imports but says no version (a build from
    source), None when there is none."""
    return _installed("torch", "__version__")


def installed_numpy() -> str | None:
    """The version of the numpy installed, as installed_torch gives torch's."""
    return _installed("numpy", "version")


def _installed(package: str, name: str) -> str | None:
    """The version a package's version.py gives as name (read, not imported: importlib.metadata alone costs `check`
    30 ms before its sandbox starts), else its distribution's metadata; "" when it imports with neither, None when it
    is absent."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    for folder in spec.submodule_search_locations or ():
        try:
            text = open(f"{folder}/version.py", encoding="utf-8").read()
        except OSError:
            continue
        found = re.search(rf"^{name}\s*(?::[^=]+)?=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
        if found:
            return found.group(1)
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return ""


def _release(version: str | None) -> tuple[int, int] | None:
    """(major, minor) of a version string, None for "", None or an odd one."""
    found = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def torch_problem(version: str | None, numpy: str | None = None) -> str | None:
    """One line saying why torch version (from installed_torch), beside numpy version numpy (installed_numpy), cannot
    grade, and what to do; None when it can."""
    floor = ".".join(map(str, TORCH_FLOOR))
    if version is None:
        return _("torch is not installed: install it first (the README gives the line for your system), then try again")
    release, numpy_release = _release(version), _release(numpy)
    if release is not None and release < TORCH_FLOOR:  # "" or an odd version string: let it try
        return _(
            "this kit needs torch {floor} or newer, and torch {version} is installed: upgrade it (`pip install "
            "--upgrade torch`, or the README's line for your system), then try again"
        ).format(floor=floor, version=version)
    if release is not None and numpy_release is not None and release < NUMPY_2_TORCH and numpy_release >= (2, 0):
        return _(
            "torch {version} works with numpy 1 only, and numpy {numpy} is installed: install numpy 1 "
            "(`pip install \"numpy<2\"`), then try again"
        ).format(version=version, numpy=numpy)
    return None
