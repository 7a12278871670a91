"""Cost of `python -m autograder check 3` against a bare `python -c "import torch"`, medians of interleaved runs.

Usage: python bench/check_speed.py [ROUNDS]. Prints both medians, their ratio (target <= 1.3),
and the wall time of grading all ten questions of solutions/ (target < 30 s).
"""
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "import torch": [sys.executable, "-c", "import torch"],
    "check 3": [sys.executable, "-m", "autograder", "check", "3", "--solutions"],
}


def seconds(command: list[str]) -> float:
    """Wall time of one run of command from the kit's folder."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=False, capture_output=True)
    return time.perf_counter() - start


def main(rounds: int = 7) -> None:
    """Run the commands in turn, `rounds` times, and print medians and their ratio."""
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(rounds):
        for name, command in COMMANDS.items():
            times[name].append(seconds(command))
    base, check = (statistics.median(times[name]) for name in COMMANDS)
    print(f"import torch      median {base:.2f} s over {rounds} runs")
    print(f"check 3           median {check:.2f} s over {rounds} runs")
    print(f"ratio             {check / base:.2f} (target <= 1.3)")
    total = seconds([sys.executable, "-m", "autograder", "check", "--solutions"])
    print(f"check (all ten)   {total:.2f} s, {total / base:.1f} x import torch (target < 30 s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
