"""The package as an index would ship it: the sdist carries the licence and every test file."""
from __future__ import annotations

import subprocess
import sys
import tarfile
from importlib.metadata import metadata

import pytest

from conftest import REPO

pytest.importorskip("build")


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    (archive,) = out.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        return {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}


def test_sdist_has_the_licence_and_every_test_module(sdist_names):
    tests = {f"tests/{path.name}" for path in (REPO / "tests").glob("*.py")}
    assert "tests/conftest.py" in tests
    assert tests <= sdist_names, sorted(tests - sdist_names)
    assert "LICENSE" in sdist_names


def test_installed_metadata_names_the_licence_file():
    meta = metadata("blackhole-stats")
    assert meta["License-Expression"] == "MIT"
    assert "LICENSE" in (meta.get_all("License-File") or [])
    assert any(c.startswith("Programming Language :: Python :: 3") for c in meta.get_all("Classifier"))
