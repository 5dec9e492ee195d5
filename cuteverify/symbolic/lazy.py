"""sympy and z3 as lazily loaded modules: bound at import, loaded on first attribute access.

Importing either costs a third of a second; concrete layouts, the CLI's ``--help`` and most commands never
touch them, so every module of the project takes them from here instead of importing them directly.
"""
from __future__ import annotations

import importlib.util
import sys


def lazy_module(name: str):
    """``name`` as a module object that runs its import on first attribute access (``importlib.util.LazyLoader``)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:  # pragma: no cover - both are dependencies of the package
        raise ImportError(f"cuteverify needs the {name} package")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sympy = lazy_module("sympy")
z3 = lazy_module("z3")
