"""Build the Cython extensions: every ``*.pyx`` under ``engine/`` becomes a module of the same dotted name in the
``squeeze`` namespace (``engine/dds/_solver.pyx`` -> ``squeeze.engine.dds._solver``).

Cython's generated C goes under ``build/cython/``, never beside the sources: every ``.c`` file in the source tree
is hand-written and kept in git.
"""
import platform
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).parent
# Portable code: the wheel and the docker image must run on any x86-64 CPU.  The double-dummy search is compiled a
# second time for x86-64-v3 (engine/dds/csrc/ddcore_v3.c, by a pragma) and picked at run time where the CPU has it.
ARCH_FLAGS = ["-march=x86-64", "-mtune=generic"] if platform.machine() in ("x86_64", "AMD64") else []


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
            # -fno-wrapv undoes the -fwrapv of Python's own CFLAGS: no code here relies on signed overflow wrapping,
            # and the double-dummy search runs 1 % fewer instructions without it.
            extra_compile_args=["-O3", *ARCH_FLAGS, "-fno-strict-aliasing", "-fno-wrapv"],
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
