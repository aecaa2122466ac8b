"""The compiled solver core; everything else is declared in pyproject.toml."""
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

FLAGS = {
    "msvc": ["/O2", "/W3"],
    "other": ["-O3", "-std=c11", "-Wall", "-Wextra"],  # gcc, clang, mingw
}
"""Compile flags per compiler family: MSVC spells them differently."""


class BuildExt(build_ext):
    """Picks the flags for the compiler setuptools found (only known once it has looked)."""

    def build_extensions(self):
        flags = FLAGS.get(self.compiler.compiler_type, FLAGS["other"])
        for extension in self.extensions:
            extension.extra_compile_args = flags + extension.extra_compile_args
        super().build_extensions()


setup(
    ext_modules=[Extension("blackhole_stats._core", sources=["blackhole_stats/_core.c"])],
    cmdclass={"build_ext": BuildExt},
)
