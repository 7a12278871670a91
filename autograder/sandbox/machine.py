"""What the machine leaves the kit: the memory available to this process, the container's limit counted, for a warning
before grading starts on a machine too small for it (a 350 MB notebook server is killed by the kernel with no word)."""
from pathlib import Path

from ..i18n import _
from .base import MEMORY_NEEDED
from .limits import MEMORY_BYTES

CGROUP = Path("/sys/fs/cgroup")
MEMINFO = Path("/proc/meminfo")  # Linux: what psutil.virtual_memory().available reads there, without psutil's import
V1_FILES, V2_FILES = ("memory.limit_in_bytes", "memory.usage_in_bytes"), ("memory.max", "memory.current")


def _read_number(path: Path) -> int | None:
    """The integer a cgroup file holds; None for "max", a missing file or anything else."""
    try:
        return int(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def _cgroup_room(root: Path, membership: str) -> int | None:
    """Bytes left under this process's cgroup memory limit (v2 or v1), None where there is no limit or none can be read.
    membership: the text of /proc/self/cgroup; the cgroup's folder is looked for under root by its path, then at root
    itself (a container sees its own cgroup there)."""
    rooms = []
    for line in membership.splitlines():
        _number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        files, base = (
            (V2_FILES, root)
            if controllers == ""
            else (V1_FILES, root / "memory")
            if "memory" in controllers.split(",")
            else (None, None)
        )
        if files is None:
            continue
        for folder in (base / path.lstrip("/"), base):
            limit, used = (_read_number(folder / name) for name in files)
            if limit is not None and used is not None:
                if limit < 1 << 60:  # cgroup v1 writes "no limit" as a page-rounded 2**63
                    rooms.append(max(0, limit - used))
                break
    return min(rooms) if rooms else None


def _meminfo_available(meminfo: Path) -> int | None:
    """The kernel's MemAvailable in bytes, read from meminfo (/proc/meminfo); None where there is no such line."""
    try:
        text = meminfo.read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    for line in text.splitlines():
        name, _colon, value = line.partition(":")
        fields = value.split()
        if name == "MemAvailable" and len(fields) == 2 and fields[0].isdigit() and fields[1] == "kB":
            return int(fields[0]) << 10
    return None


def available_memory(
    root: Path = CGROUP, membership: Path = Path("/proc/self/cgroup"), meminfo: Path = MEMINFO
) -> int | None:
    """Bytes of memory this process may still use: what the system has available, and what its cgroup's limit leaves;
    None where neither can be read. The system's figure is MemAvailable of meminfo on Linux (as psutil reads it: its
    import would lengthen `check`'s start), psutil's elsewhere."""
    amounts = []
    system = _meminfo_available(meminfo)
    if system is None:
        try:
            import psutil  # here: its import costs 80 ms, and where it fails the cgroup still gives a figure

            system = psutil.virtual_memory().available
        except Exception:  # noqa: BLE001 - no psutil, or no way to read the system's memory here
            pass
    if system is not None:
        amounts.append(system)
    try:
        room = _cgroup_room(root, membership.read_text(encoding="ascii"))
    except (OSError, ValueError):
        room = None
    if room is not None:
        amounts.append(room)
    return min(amounts) if amounts else None


def room_for_a_lane(backend: str) -> bool:
    """True unless the memory available is known and too little for a second lane (engine/lanes.py) beside grading
    itself: what grading needs with backend, and a whole child's memory limit more (a lane adds a child that runs while
    another does; where both could not fit, the kernel could stop one that a single lane would have graded)."""
    available = available_memory()
    return available is None or available >= MEMORY_NEEDED.get(backend, max(MEMORY_NEEDED.values())) + MEMORY_BYTES


def memory_warning(backend: str, available: int | None = None) -> str | None:
    """A one-line warning when less memory is available than grading needs with backend, None otherwise."""
    available = available_memory() if available is None else available
    needed = MEMORY_NEEDED.get(backend, max(MEMORY_NEEDED.values()))
    if available is None or available >= needed:
        return None
    return _(
        "autograder: only {available} MB of memory are available here, and grading needs about {needed} MB (the "
        "{backend} sandbox): the system may stop it without a word. Close other programs, or give the container or "
        "notebook server more memory."
    ).format(available=available >> 20, needed=needed >> 20, backend=backend)
