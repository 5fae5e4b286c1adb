"""Build the Cython extensions: every ``*.pyx`` under ``engine/`` becomes a module of the same dotted name in the
``squeeze`` namespace (``engine/dds/_solver.pyx`` -> ``squeeze.engine.dds._solver``).

Cython's generated C goes under ``build/cython/``, never beside the sources: every ``.c`` file in the source tree
is hand-written and kept in git.
"""
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
            ".".join(("squeeze",) + p.relative_to(ROOT).with_suffix("").parts),
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
        build_dir="build/cython",
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False},
    )


setup(ext_modules=_extensions())
