"""Build the Cython extensions: every ``*.pyx`` under ``engine/`` becomes a module of the same dotted name."""
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).parent


def _extensions() -> list:
    sources = sorted(ROOT.glob("engine/**/*.pyx"))
    if not sources:
        return []
    from Cython.Build import cythonize
    import numpy

    exts = [
        Extension(
            ".".join(p.relative_to(ROOT).with_suffix("").parts),
            [str(p.relative_to(ROOT))],
            include_dirs=[numpy.get_include(), str(p.parent)],
            extra_compile_args=["-O3", "-march=x86-64-v2", "-fno-strict-aliasing"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
        for p in sources
    ]
    return cythonize(
        exts,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False},
    )


setup(ext_modules=_extensions())
