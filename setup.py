"""The compiled solver core; everything else is declared in pyproject.toml."""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "blackhole_stats._core",
            sources=["blackhole_stats/_core.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
        )
    ]
)
