"""A Windows Job Object around each portable child: the kernel caps the memory of its whole tree and kills the tree
whole.

Where the platform has jobs (ctypes.WinDLL, Windows), a child is put in a job of its own as soon as it starts, before
any student code runs (the child first imports torch, then waits for its question): JOB_OBJECT_LIMIT_JOB_MEMORY caps
the memory committed by all its processes together, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE ends them all when the job's
last handle closes (the grader closing it, or the grader dying), and TerminateJobObject kills them all at a limit.
Elsewhere `for_child` gives None, and the process group and the psutil watchdog do that work (parent.py).
"""
import ctypes
import subprocess

EXTENDED_LIMIT_INFORMATION = 9  # JOBOBJECTINFOCLASS JobObjectExtendedLimitInformation
LIMIT_JOB_MEMORY, LIMIT_KILL_ON_JOB_CLOSE = 0x200, 0x2000
PROCESS_SET_QUOTA, PROCESS_TERMINATE = 0x0100, 0x0001  # what AssignProcessToJobObject needs of the process handle
KILLED = 137  # the exit code of a tree the job killed: 128 + SIGKILL's number, as a kill reads on POSIX


class _BasicLimits(ctypes.Structure):
    """JOBOBJECT_BASIC_LIMIT_INFORMATION, with fixed-width fields (a Windows DWORD is 32 bits, a C long on Linux is
    not)."""

    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _IoCounters(ctypes.Structure):
    """IO_COUNTERS."""

    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            "ReadOperationCount",
            "WriteOperationCount",
            "OtherOperationCount",
            "ReadTransferCount",
            "WriteTransferCount",
            "OtherTransferCount",
        )
    ]


class ExtendedLimits(ctypes.Structure):
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION (144 bytes on a 64-bit Windows)."""

    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


def _kernel32() -> object | None:
    """Windows' kernel32 with the signatures used here; None where the platform has no such library."""
    windll = getattr(ctypes, "WinDLL", None)
    if windll is None:
        return None
    kernel32 = windll("kernel32", use_last_error=True)
    handle, boolean = ctypes.c_void_p, ctypes.c_int
    for name, argtypes, restype in (
        ("CreateJobObjectW", [ctypes.c_void_p, ctypes.c_wchar_p], handle),
        ("SetInformationJobObject", [handle, ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32], boolean),
        ("OpenProcess", [ctypes.c_uint32, boolean, ctypes.c_uint32], handle),
        ("AssignProcessToJobObject", [handle, handle], boolean),
        ("TerminateJobObject", [handle, ctypes.c_uint32], boolean),
        ("CloseHandle", [handle], boolean),
    ):
        function = getattr(kernel32, name)
        function.argtypes, function.restype = argtypes, restype
    return kernel32


class JobObject:
    """One child's job: kill() ends every process in it, close() lets go of it (which kills what is left)."""

    def __init__(self, kernel32: object, handle: int) -> None:
        self.kernel32, self.handle = kernel32, handle

    def kill(self) -> None:
        """Terminate every process of the job at once."""
        if self.handle:
            self.kernel32.TerminateJobObject(self.handle, KILLED)

    def close(self) -> None:
        """Close the job's handle; its processes end with it (KILL_ON_JOB_CLOSE)."""
        if self.handle:
            self.kernel32.CloseHandle(self.handle)
            self.handle = 0


def for_child(popen: subprocess.Popen, memory_bytes: int, kernel32: object | None = None) -> JobObject | None:
    """A job holding popen's process and all it will start, their memory capped at memory_bytes together; None where
    the platform has no jobs, or refused one (the watchdog then works alone). kernel32: the library (a stand-in in
    tests)."""
    kernel32 = kernel32 if kernel32 is not None else _kernel32()
    if kernel32 is None:
        return None
    handle = kernel32.CreateJobObjectW(None, None)
    if not handle:
        return None
    limits = ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = LIMIT_JOB_MEMORY | LIMIT_KILL_ON_JOB_CLOSE
    limits.JobMemoryLimit = memory_bytes
    process = kernel32.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, popen.pid)
    try:
        placed = bool(process) and bool(
            kernel32.SetInformationJobObject(
                handle, EXTENDED_LIMIT_INFORMATION, ctypes.byref(limits), ctypes.sizeof(limits)
            )
        )
        placed = placed and bool(kernel32.AssignProcessToJobObject(handle, process))
    finally:
        if process:
            kernel32.CloseHandle(process)
    if not placed:
        kernel32.CloseHandle(handle)  # the child is not in it: nothing is killed by closing it
        return None
    return JobObject(kernel32, handle)
