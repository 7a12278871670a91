"""torch's detection of the CPU (cpuinfo) where the kernel refuses what it asks, for tests: loaded after the other
files.

On an arm64 machine under seccomp, or in a container that hides /sys, cpuinfo fails; ATen runs it once, lazily, at the
first operator that picks a kernel by the CPU's features (or when asked for the CPU's capability), and its C code then
writes "Error in cpuinfo: ..." to the process's standard error. Here torch, once imported, writes that line to file
descriptor 2 at the first matrix product or question of the CPU's capability in each process.
"""
import importlib.abc
import importlib.machinery
import os
import sys

LINE = b"Error in cpuinfo: prctl(PR_SVE_GET_VL) failed\n"
_said: list[bool] = []


def _detect() -> None:
    if not _said:
        _said.append(True)
        os.write(2, LINE)


def _lazy(torch: object) -> None:
    """Make torch's first matrix product and its first question of the CPU's capability detect the CPU."""
    product, capability = torch.Tensor.__matmul__, torch._C._get_cpu_capability

    def matmul(self: object, other: object) -> object:
        _detect()
        return product(self, other)

    def get_cpu_capability() -> str:
        _detect()
        return capability()

    torch.Tensor.__matmul__, torch._C._get_cpu_capability = matmul, get_cpu_capability


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds torch as usual, and runs _lazy on it once it is imported."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        execute = spec.loader.exec_module

        def exec_module(module: object) -> None:
            execute(module)
            _lazy(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AfterTorch())
