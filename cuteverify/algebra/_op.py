"""Plumbing shared by the algebra operations: one decision context per public call, obligations
attached to the result, mode descriptions for error messages."""
from __future__ import annotations

import functools

from ..core.format import format_tuple
from ..core.layout import Layout, compact_col_major
from ..core.parse import parse
from ..core.scan import ALL, split_top
from ..errors import UndecidedError
from ..symbolic import decide, normalize


def _assumptions_of(args):
    out = None
    for a in args:
        for x in (a if type(a) is tuple else (a,)):
            asm = getattr(x, "assumptions", None)
            if asm is not None:
                out = asm if out is None else out.merged(asm)
    return out


def _obligations_of(args):
    out = []
    for a in args:
        for x in (a if type(a) is tuple else (a,)):
            for o in getattr(x, "obligations", ()):
                if o not in out:
                    out.append(o)
    return out


def operation(fn=None, *, swizzle_through=False):
    """Run ``fn`` in a decision context made of its layout arguments' assumptions; the result carries the
    union of the inputs' obligations and the new ones, and the notes of this call. Nested operations share
    the outermost context, so only the outermost call pays for it.

    ``swizzle_through=True`` is for operations that act on a swizzled layout through its inner layout:
    ``(Sw o off o L) op B`` is ``Sw o off o (L op B)``, as CuTe does for composed layouts (docs/model.md
    section 4); it is checked here, once, so that plain layouts pay for no second wrapper."""
    if fn is None:
        return lambda f: operation(f, swizzle_through=swizzle_through)
    current, Context, enter, leave = decide.current, decide.Context, decide.enter, decide.leave
    plain = Layout

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        for a in args:  # CuTe text, as every API function takes it (a loop: cheaper than any() here)
            if type(a) is str:
                args = tuple(_from_text(a) if type(a) is str else a for a in args)
                break
        if swizzle_through and args and type(args[0]) is not plain and hasattr(args[0], "outer"):
            a = args[0]
            return a.with_outer(wrapper(a.outer, *args[1:], **kw))
        if current() is not None:
            return fn(*args, **kw)
        for a in args:
            t = type(a)
            if t is plain:
                if a.assumptions is not None or a.obligations:
                    break
            elif t is not int:
                break
        else:
            # plain concrete layouts: nothing to inherit, obligations only if something was undecidable
            ctx = Context(None)
            token = enter(ctx)
            try:
                result = fn(*args, **kw)
            finally:
                leave(token)
            if ctx.obligations or ctx.notes:
                if ctx.obligations:
                    _refuse_pinned(ctx.obligations, fn.__name__)
                result = _attach(result, tuple(ctx.obligations), None, tuple(ctx.notes))
            return result
        asm = _assumptions_of(args)
        if asm is not None:  # a contradiction would let every decision go either way (remembered per object)
            asm.check_consistent()
        ctx = Context(asm)
        token = enter(ctx)
        try:
            result = fn(*args, **kw)
        finally:
            leave(token)
        _refuse_pinned(ctx.obligations, fn.__name__)
        inherited = _obligations_of(args)
        if inherited or ctx.obligations or ctx.notes or asm is not None:
            obs = inherited + [o for o in ctx.obligations if o not in inherited]
            result = _attach(result, tuple(obs), asm, tuple(ctx.notes))
        return result

    return wrapper


def _from_text(text):
    """A string argument: a tiler such as ``<3:3, (2,4):(1,8)>``, or layout text (``cv.parse``'s forms)."""
    t = text.strip()
    if t.startswith("<") and t.endswith(">"):
        return tuple(None if p.strip() in ("_", "None") else _from_text(p) for p, _ in split_top(t[1:-1], ",", ALL))
    return parse(t)


def _attach(result, obligations, assumptions, notes):
    """The result with its obligations, assumptions and notes; a swizzled result carries them on its inner
    layout. Other results (ints, tuples) carry nothing."""
    target = result.outer if hasattr(result, "outer") else result
    if not isinstance(target, Layout):
        return result
    target = Layout._make(target.shape, target.stride, obligations, assumptions, notes)
    return result.with_outer(target) if hasattr(result, "outer") else target


def _refuse_pinned(obligations, op):
    """``a | b`` together with ``b | a`` holds only where ``a == b``: such a result would silently apply to a
    single value of the symbols. Ask for the assumption that picks the case instead."""
    divs = {(str(o.condition.a), str(o.condition.b)): o for o in obligations
            if not o.canonical and getattr(o.condition, "kind", None) == "divides"}
    for (a, b), o in divs.items():
        if a != b and (b, a) in divs:
            raise UndecidedError(f"{op} on these symbolic layouts needs to know whether {a} | {b} or {b} | {a} "
                                 f"(the two cases give different layouts); add an assumption that decides it, "
                                 f"e.g. '{a} | {b}'")


def mode_text(shape, stride, index=None) -> str:
    where = f"mode {index} " if index is not None else ""
    return f"{where}({format_tuple(shape)}:{format_tuple(stride)})"


def as_layout(x) -> Layout:
    """Ints and shapes used as tilers mean compact layouts, as ``make_layout(n)`` makes them: ``n`` is
    ``n:1``, but ``1`` is ``1:0`` (CuTe gives static size-1 modes stride 0, and CuTe DSL reads a tiler's ints
    that way: ``(8,3):(1,24) o <1,3>`` is ``(1,3):(0,24)``)."""
    if isinstance(x, Layout):
        return x
    if type(x) is int:
        return Layout._make(x, 0 if x == 1 else 1)
    if hasattr(x, "outer"):
        return x
    if hasattr(x, "free_symbols") and not callable(x.free_symbols):
        # a symbolic extent (sympy's free_symbols is a property; layouts' is a method)
        return Layout(x, 1)
    if type(x) is tuple:
        return Layout(x, compact_col_major(x))
    return parse(x) if isinstance(x, str) else _bad(x)


def _bad(x):
    raise TypeError(f"expected a layout, a shape or a tiler, got {x!r}")


def exact_div(a, b):
    """``a / b`` for a known multiple (ints stay ints)."""
    if type(a) is int and type(b) is int:
        return a // b
    import sympy
    return normalize(sympy.sympify(a) / b)
