"""Fault-injection tests: shared launchers (mpiexec, killed child processes)."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "distribute"))
