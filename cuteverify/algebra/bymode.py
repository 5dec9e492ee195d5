"""By-mode application of the algebra: every public operation takes ``mode=`` (the NVlabs reference's
``mode`` argument, e.g. ``coalesce[1](A)``, ``logical_divide(A, B, mode=(0, 1))``)."""
from __future__ import annotations

import functools

from ..core.layout import Layout, make_layout
from ..errors import NotAdmissibleError
from ..core.notation.interop import as_layout
from ._op import operation

# Operations that relate two layouts over one domain and return something that is not a layout of the first
# one's domain: ``mode=`` applies them to that mode of both arguments.
RELATIONAL = frozenset({"max_common_layout", "max_common_vector", "greatest_common_domain"})


def by_mode(fn):
    """``fn`` with an optional keyword ``mode`` (an int, or a tuple of ints: a path into nested modes).

    Definition: ``op(A, *args, mode=m)`` is ``A`` with its sub-layout at ``m`` (``A[m0][m1]...``) replaced by
    ``op(A[m], *args)``; the other modes stay as they are. For the relational operations (``RELATIONAL``:
    ``max_common_layout``, ``max_common_vector``, ``greatest_common_domain``) it is ``op(A[m], B[m])``, the
    result as that operation gives it. ``mode=None`` or ``()`` is the operation on the whole layout. As in the
    reference, ``composition(A, B, mode=1)`` is ``composition(A, <_, B>)`` and ``coalesce(A, mode=1)`` is
    ``coalesce(A, (None, 1))`` (mode 0 kept), and a layout of rank 1 with an unnested shape is its own mode 0.
    A composed layout ``Sw o off o L`` has the modes ``Sw o off o L[i]``; replacing one is exact where the
    result is again ``Sw o off o X`` (then ``L``'s mode becomes ``X``), and refused otherwise (no single
    swizzle covers the mixture).
    Admissibility: ``m`` names a mode of ``A`` (each index below the rank at its depth) and the operation is
    admissible on ``A[m]``; otherwise ``NotAdmissibleError`` naming the mode and the rank.
    Post-condition: ``R[m] == op(A[m], *args)`` and ``R[k] == A[k]`` for every other mode ``k`` along the path;
    the obligations and notes of the operation on ``A[m]`` carry over to ``R``.
    """
    name = fn.__name__
    relational = name in RELATIONAL

    def body(a, *rest, _path, **kw):
        if relational:
            b = [as_layout(x, tiler=True) if type(x) is str else x for x in rest[:1]]
            return fn(_get(a, _path, name), *(_get(x, _path, name) for x in b), *rest[1:], **kw)
        return _put(a, _path, fn(_get(a, _path, name), *rest, **kw), name)

    body.__name__ = body.__qualname__ = name
    at_mode = operation(body)

    def by_path(*args, mode, **kw):
        path = mode_path(mode, name)
        if not args:
            raise TypeError(f"{name}() needs a layout to apply to mode {mode}")
        return at_mode(*args, _path=path, **kw)

    if getattr(fn, "_takes_mode", False):
        # fn tests for ``mode`` itself (an operation wrapper: ``_op._mode_call``): no extra call layer per call
        fn.at_mode = by_path
        return fn

    @functools.wraps(fn)
    def public(*args, mode=None, **kw):
        if mode is None or mode == ():
            return fn(*args, **kw)
        return by_path(*args, mode=mode, **kw)

    return public


def mode_path(mode, name="mode"):
    """``mode`` as a path (a tuple of non-negative ints): an int is a path of length 1."""
    path = mode if type(mode) is tuple else (mode,)
    for m in path:
        if type(m) is not int or m < 0:
            raise NotAdmissibleError(name, f"mode= takes a mode number or a tuple of them (non-negative "
                                     f"integers), got {mode!r}")
    return path


def _get(a, path, name):
    x = a
    for depth, m in enumerate(path):
        shape = x.outer.shape if hasattr(x, "outer") else getattr(x, "shape", x)
        r = len(shape) if type(shape) is tuple else 1
        if m >= r:
            where = f"mode {path[:depth + 1]}" if depth else f"mode {m}"
            raise NotAdmissibleError(name, f"{where} is not a mode of {a} (rank {r} there)")
        if type(shape) is tuple:
            x = x[m]
    return x


def _put(a, path, r, name):
    """``a`` with the sub-layout at ``path`` replaced by ``r``."""
    if not path:
        return r
    shape = a.outer.shape if hasattr(a, "outer") else a.shape
    if type(shape) is not tuple:  # a rank-1 unnested layout is its own mode 0
        return _put(a, path[1:], r, name) if len(path) > 1 else r
    modes = [a[i] for i in range(len(shape))]
    modes[path[0]] = _put(modes[path[0]], path[1:], r, name)
    if not all(isinstance(m, Layout) for m in modes) and not all(hasattr(m, "outer") for m in modes):
        raise NotAdmissibleError(name, f"the result at mode {path[0]} ({modes[path[0]]}) cannot replace a mode of "
                                 f"{a}: one is a composed (swizzled) layout and the other is not")
    return make_layout(*modes)


__all__ = ["by_mode", "mode_path", "RELATIONAL"]
