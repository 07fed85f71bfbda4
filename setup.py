"""Package discovery for the source layout (metadata lives in pyproject.toml).

`runtime/`, `cli/` and `shared/` are installed as `xprof.runtime`, `xprof.mxcli` and
`xprof.traces`: setuptools'
`find_packages` runs in each directory and every package found is prefixed, so nothing
is installed as a top-level `runtime` or `cli`, and a new subpackage is picked up without
editing a list.
"""
from setuptools import Extension, find_packages, setup

PACKAGE_ROOTS = {"xprof.runtime": "runtime", "xprof.mxcli": "cli", "xprof.traces": "traces"}


def discovered():
    names = []
    for package, directory in PACKAGE_ROOTS.items():
        names.append(package)
        names.extend(f"{package}.{sub}" for sub in find_packages(directory))
    return names


# The line sampler's tick loop in C (runtime/profiler/_linesampler.c, why in sampler.py).
# Optional: without a C compiler or Python's headers the build goes on without it and
# the sampler runs its Python loop.
LINE_SAMPLER = Extension("xprof.runtime.profiler._linesampler",
                         ["runtime/profiler/_linesampler.c"], optional=True)

# The timed busy wait of `xprof run --slow` (runtime/_spin.c, why in runtime/slow.py):
# optional too (a Python loop holding the GIL otherwise).
SPIN = Extension("xprof.runtime._spin", ["runtime/_spin.c"], optional=True)

# An engine op's dependency record in one C call (runtime/profiler/_oprecord.c, #42):
# optional (observer.py's Python method otherwise).
OP_RECORD = Extension("xprof.runtime.profiler._oprecord", ["runtime/profiler/_oprecord.c"],
                      optional=True)

# A memory-profiled array's allocation and release records (runtime/profiler/_memrecord.c,
# #42): optional (runtime/ndarray/memlog.py's Python otherwise).
MEM_RECORD = Extension("xprof.runtime.profiler._memrecord",
                       ["runtime/profiler/_memrecord.c"], optional=True)

setup(packages=discovered(), ext_modules=[LINE_SAMPLER, SPIN, OP_RECORD, MEM_RECORD])
