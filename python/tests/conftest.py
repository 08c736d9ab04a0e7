"""Fixtures: the `morris` command line (expected values come from it) and a
database of Three Men's Morris that it solves once per test session."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def morris_binary() -> str:
    """`$MORRIS_BIN`, else the release or debug build of this checkout."""
    if os.environ.get("MORRIS_BIN"):
        return os.environ["MORRIS_BIN"]
    targets = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    targets.append(ROOT / "target")
    for target in targets:
        for profile in ("release", "debug"):
            candidate = target / profile / "morris"
            if candidate.is_file():
                return str(candidate)
    found = shutil.which("morris")
    if found:
        return found
    pytest.skip("no morris binary: build it (cargo build --release -p morris-tools) or set MORRIS_BIN")


class Cli:
    """Runs `morris` and returns its standard output."""

    def __init__(self, binary: str):
        self.binary = binary

    def __call__(self, *args: str) -> str:
        done = subprocess.run([self.binary, *args], capture_output=True, text=True, check=True)
        return done.stdout


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(morris_binary())


@pytest.fixture(scope="session")
def three_db(cli: Cli, tmp_path_factory) -> Path:
    """A directory made by `morris solve --rules three --phase all`."""
    path = tmp_path_factory.mktemp("three-db")
    cli("solve", "--rules", "three", "--phase", "all", "--db", str(path))
    return path
