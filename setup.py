"""Build the compiled core: the Extension list for bgfast/_core, nothing else."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

MODULES = ["board", "movegen", "rng", "evaluators", "heuristic", "search", "evaluator", "cube", "game", "bearoff",
           "neural", "training", "rollout", "cubeful"]

extensions = [
    Extension(
        f"bgfast._core.{name}",
        [f"bgfast/_core/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
