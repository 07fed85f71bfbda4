"""Package discovery for the source layout (metadata lives in pyproject.toml).

`runtime/`, `cli/` and `shared/` are installed as `xprof.runtime`, `xprof.cli` and
`xprof.traces`: setuptools'
`find_packages` runs in each directory and every package found is prefixed, so nothing
is installed as a top-level `runtime` or `cli`, and a new subpackage is picked up without
editing a list.
"""
from setuptools import find_packages, setup

PACKAGE_ROOTS = {"xprof.runtime": "runtime", "xprof.cli": "cli", "xprof.traces": "traces"}


def discovered():
    names = []
    for package, directory in PACKAGE_ROOTS.items():
        names.append(package)
        names.extend(f"{package}.{sub}" for sub in find_packages(directory))
    return names


setup(packages=discovered())
