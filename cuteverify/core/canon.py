"""Re-canonicalisation of an instantiated symbolic result (``Layout.subs``; docs/model.md sections 3.2, 5.1).

A result of a public algebra call remembers the call (``Layout._origin``, set by ``algebra._op``): ``subs``
re-runs the operation on the substituted arguments (``replayed``), so the instantiated result prints exactly
as the concrete operation prints it, after every operation (coalesce, filter, the inverses, the divides and
products), and is checked to be the same function as the symbolic result instantiated. The rule below is
the fallback where there is no call to re-run (a layout built by hand, a partial substitution).

A symbolic operation keeps a mode whose size ``X`` is not known to be 1 and records the printed-form-only
obligation ``X != 1`` ("coalesce keeps a mode whose size is not known to be 1"). Once a substitution makes
``X`` equal to 1, the concrete operation would have taken the other branch, and CuTe's canonical form of
that mode is ``1:0``. Setting its stride to 0 does not change the function on ``[0, size)`` (the mode's only
coordinate is 0); it restores the printed form the concrete operation gives. Only modes tied to such an
obligation change: other size-1 modes are printed as the operation chose them (CuTe's products keep a
size-1 mode's stride, for example).
"""
from __future__ import annotations

from ..errors import CuteVerifyError, NotAdmissibleError, Unsupported
from ..symbolic import normalize, symbol


def unit_sizes(obligations, values, names):
    """The sizes ``X`` of the printed-form-only obligations ``X != 1`` that ``values`` make false."""
    out = []
    for o in obligations:
        c = getattr(o, "condition", None)
        if not getattr(o, "canonical", False) or getattr(c, "kind", None) != "ne":
            continue
        for x, one in ((c.a, c.b), (c.b, c.a)):
            if type(one) is int and one == 1 and hasattr(x, "free_symbols") and \
                    {s.name for s in x.free_symbols} <= names and c.holds(values) is False:
                out.append(x)
    return out


def unit_strides(old_shape, new_shape, stride, units):
    """``stride`` with 0 for every mode whose symbolic size (in ``old_shape``) is one of ``units`` and is 1
    in ``new_shape``."""
    if not units:
        return stride
    if type(new_shape) is tuple:
        if type(stride) is not tuple or type(old_shape) is not tuple:
            return stride
        return tuple(unit_strides(o, n, d, units) for o, n, d in zip(old_shape, new_shape, stride))
    if type(new_shape) is int and new_shape == 1 and type(old_shape) is not int and type(stride) is not tuple \
            and any(old_shape == u for u in units):
        return 0
    return stride


def subs_values(values: dict, present=None) -> dict:
    """The values of a substitution, each checked: symbols are positive integers (docs/model.md section 5.2),
    so a value is an ``int`` (a sympy integer is read as one), positive for every symbol in ``present`` (the
    layout's own symbols; a value for a symbol the layout lacks, such as a spec's 0/1 flag parameter, changes
    nothing and need only be an integer). Anything else (0 or a negative for a symbol of the layout, a float, a
    bool, text or an expression in other symbols) is a ``NotAdmissibleError`` naming the symbol and the value."""
    out = {}
    for k, v in values.items():
        name = getattr(k, "name", k)
        if type(v) is not int and not isinstance(v, bool) and getattr(v, "is_Integer", False):
            v = int(v)
        if type(v) is not int or (v <= 0 and (present is None or name in present)):
            raise NotAdmissibleError("subs", f"symbol {name} must be given a positive integer (symbols are "
                                     f"positive integers), got {v!r}")
        out[name] = v
    return out


# --- re-running the operation --------------------------------------------------------------------------------

# A substituted result is compared value by value with the re-run operation up to this size.
_CHECK_SIZE = 1 << 14


def replayed(origin, values, substituted):
    """The printed form the concrete operation gives at ``values``: ``origin`` is ``(operation, args, kw)``
    of the public call that made the symbolic result; the arguments are substituted (their own ``subs``, so
    nested results re-run too) and the operation is called again. The re-run must be the same function on
    ``[0, size)`` as ``substituted`` (the symbolic result instantiated): a difference is an internal error,
    never a silent answer. Where the arguments stay symbolic (a partial substitution) or the concrete
    operation refuses, ``substituted`` is the answer."""
    op, args, kw = origin
    try:
        new = op(*(_subs_arg(a, values) for a in args), **{k: _subs_arg(v, values) for k, v in kw.items()})
    except CuteVerifyError:
        return substituted
    if not hasattr(new, "shape") or getattr(new, "free_symbols", None) is None or new.free_symbols():
        return substituted
    if hasattr(new, "outer") or substituted.free_symbols():
        return substituted
    n = _size(substituted.shape)
    if type(n) is int and n <= _CHECK_SIZE:
        got, want = list(substituted.values()), list(new.values())
        if got != want:
            raise Unsupported(f"internal: {op.__name__} at {', '.join(f'{k}={v}' for k, v in sorted(values.items()))}"
                              f" gives {new}, but the symbolic result instantiates to {substituted}: the two differ "
                              "as functions (please report this)")
    return new


def _subs_arg(a, values):
    if type(a) is int or a is None or type(a) is str:
        return a
    if type(a) is tuple:
        return tuple(_subs_arg(x, values) for x in a)
    if isinstance(a, list):
        return [_subs_arg(x, values) for x in a]
    if hasattr(a, "subs"):
        if callable(getattr(a, "free_symbols", None)):
            names = {s.name for s in a.free_symbols()}
            return a.subs({k: v for k, v in values.items() if k in names}) if names else a
        return normalize(a.subs({symbol(k): v for k, v in values.items()}))
    return a


def _size(shape):
    if type(shape) is tuple:
        out = 1
        for s in shape:
            out *= _size(s)
        return out
    return shape
