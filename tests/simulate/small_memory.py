"""A machine short of memory, for tests: loaded in every process of a simulated interpreter.

A sandbox's processes (started from a worker.py) get an address space of MEMORY bytes before they import anything, as
under `ulimit -v`, so their import of torch fails for want of memory, as it fails on a machine or in a container
(a small JupyterHub or Binder) with too little memory. The grader itself keeps what it has.
"""
import resource
import sys

MEMORY = 200 << 20  # the test may write its own figure here when it copies this file

if any(argument.endswith("worker.py") for argument in sys.argv):
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
