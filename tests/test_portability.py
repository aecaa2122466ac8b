"""The C core with other compilers: clang, the plain-C bit functions MSVC uses, and mingw-w64."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "check_compilers.py"
pytestmark = [pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the plain-C variant"),
              pytest.mark.skipif(not SCRIPT.exists(), reason="scripts/ is not shipped in the sdist")]


def test_other_builds_decide_deals_exactly_as_the_installed_one():
    done = subprocess.run([sys.executable, str(SCRIPT), "--deals", "60",
                           "--classic", "3", "--walks", "8"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "portable C (MSVC's bits, non-x86 lanes): built with -std=c11 -Wall -Wextra -Werror; deals 1..60 fast, " \
           "1..3 classic and 1..8 trap walks: 0 differences" in done.stdout
    assert "the SSE4.1 pass of CPUs without AVX2: built with -std=c11 -Wall -Wextra -Werror; deals 1..60 fast, " \
           "1..3 classic and 1..8 trap walks: 0 differences" in done.stdout
    for compiler, line in (("clang", "clang: built"), ("x86_64-w64-mingw32-gcc", "compile only, ok")):
        assert (line in done.stdout) == (shutil.which(compiler) is not None), done.stdout
