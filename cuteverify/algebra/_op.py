"""Plumbing shared by the algebra operations: one decision context per public call, obligations
attached to the result, mode descriptions for error messages."""
from __future__ import annotations

import contextvars
import functools

from ..core.notation.format import format_tuple
from ..core.layout import Layout
from ..core.notation.interop import as_layout
from ..core.notation.tiles import read_tiler
from ..core.piecewise import PiecewiseLayout, flatten_pieces
from ..core.swizzle import ComposedLayout, Swizzle
from ..errors import CaseSplit, CuteVerifyError, UndecidedError
from ..symbolic import decide, normalize
from ..symbolic.decide import Piece

# The decision context whose operation catches a case split (``split_cases``): a decision deep inside an
# operation that neither answer of which can be carried as an obligation re-runs the whole operation once per
# case. Only the outermost wrapper of a public call (and each of its cases) catches; elsewhere (an operation
# called inside someone else's ``decide.context``) ``split_cases`` says no and the caller keeps its old rule.
_SPLITTING: contextvars.ContextVar = contextvars.ContextVar("cuteverify_splitting", default=None)

# Case splits nest (one per open decision); past this depth the operation asks for an assumption instead.
_MAX_SPLITS = 4


def split_cases(condition) -> bool:
    """Ask the enclosing public operation to split on ``condition`` (and its negation): returns only when no
    split is possible here (then False), else re-runs the operation per case (never returns)."""
    ctx = decide.current()
    if ctx is not None and _SPLITTING.get() is ctx:
        raise CaseSplit(condition)
    return False


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


_LAYOUT_KINDS = (Layout, ComposedLayout, Swizzle, PiecewiseLayout)


def plain_ints(x):
    """The int leaves of a plain concrete layout with nothing to inherit (no assumptions, no obligations),
    else None: the arguments an operation's ``fast`` hook may answer for outside any decision context."""
    if type(x) is Layout and x.assumptions is None and not x.obligations:
        return x.int_leaves
    return None


def operation(fn=None, *, swizzle_through=False, fast=None, tiler_at=None):
    """Run ``fn`` in a decision context made of its layout arguments' assumptions; the result carries the
    union of the inputs' obligations and the new ones, and the notes of this call. Nested operations share
    the outermost context, so only the outermost call pays for it.

    ``swizzle_through=True`` is for operations that act on a swizzled layout through its inner layout:
    ``(Sw o off o L) op B`` is ``Sw o off o (L op B)``, as CuTe does for composed layouts (docs/model.md
    section 4); it is checked here, once, so that plain layouts pay for no second wrapper.

    ``fast`` (optional) is tried first with the call's arguments: a plain-int shortcut that answers (returns
    a result) only where the operation makes no note and no obligation (``plain_ints`` arguments), so the
    decision context can be skipped; it returns None to decline, and raises the operation's own refusals.

    ``tiler_at`` (optional): the position of a tiler argument (the divides' ``b``); text there is read as every
    tiler-taking function reads it (``core.notation.tiles.read_tiler``: ``(4,8)`` by mode, as the tuple and
    CuTe's Shape; ``(4,8):(1,4)`` one layout), other text arguments as layouts."""
    if fn is None:
        return lambda f: operation(f, swizzle_through=swizzle_through, fast=fast, tiler_at=tiler_at)
    current, Context, enter, leave = decide.current, decide.Context, decide.enter, decide.leave
    plain = Layout

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if kw and "mode" in kw:  # ``mode=`` (bymode.by_mode): one dict test, so that mode=None costs nothing
            return _mode_call(wrapper, args, kw)
        if fast is not None:
            r = fast(*args, **kw)
            if r is not None:
                return r
        for a in args:  # CuTe text, as every API function takes it (a loop: cheaper than any() here)
            if type(a) is str:
                args = tuple((read_tiler(a) if i == tiler_at else as_layout(a, tiler=True)) if type(a) is str else a
                             for i, a in enumerate(args))
                break
            if type(a) is PiecewiseLayout:
                return _per_piece(wrapper, args, kw)
        if args and type(args[0]) is not plain and not isinstance(args[0], _LAYOUT_KINDS):
            # every operation's first argument is a layout: a shape or another library's layout reads as one,
            # anything else is an input error naming it (never an AttributeError from deep inside)
            args = (as_layout(args[0], "layout", shapes=type(args[0]) in (tuple, int)),) + args[1:]
        if swizzle_through and args and type(args[0]) is not plain and hasattr(args[0], "outer"):
            a = args[0]
            return a.with_outer(wrapper(a.outer, *args[1:], **kw))
        if current() is not None:
            return fn(*args, **kw)
        for a in args:
            t = type(a)
            if t is plain:
                # symbolic entries take the general path (it catches case splits) even with no assumptions
                if a.assumptions is not None or a.obligations or a.int_leaves is None:
                    break
            elif t is tuple:  # a tiler of plain concrete layouts, ints and None is concrete too
                for x in a:
                    if x is None or type(x) is int:
                        continue
                    if type(x) is not plain or x.assumptions is not None or x.obligations or x.int_leaves is None:
                        break
                else:
                    continue
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
                    _refuse_pinned(ctx.obligations, fn.__name__.lstrip("_"))
                result = _attach(result, tuple(ctx.obligations), None, tuple(ctx.notes))
            return result
        asm = _assumptions_of(args)
        if asm is not None:  # a contradiction would let every decision go either way (remembered per object)
            asm.check_consistent()
        ctx = Context(asm)
        token = enter(ctx)
        stoken = _SPLITTING.set(ctx)
        split = None
        try:
            result = fn(*args, **kw)
        except CaseSplit as s:
            split = s.condition
        finally:
            _SPLITTING.reset(stoken)
            leave(token)
        inherited = _obligations_of(args)
        if split is not None:
            return _by_cases(wrapper, fn, args, kw, split, asm, inherited)
        _refuse_pinned(ctx.obligations, fn.__name__.lstrip("_"))
        if inherited or ctx.obligations or ctx.notes or asm is not None:
            obs = inherited + [o for o in ctx.obligations if o not in inherited]
            result = _attach(result, tuple(obs), asm, tuple(ctx.notes))
        return _remember(result, wrapper, args, kw)

    wrapper._takes_mode = True  # by_mode: the wrapper handles mode= itself
    return wrapper


def _mode_call(op, args, kw):
    """``op(*args, mode=m, **rest)``: the whole operation for ``m`` None or ``()``, else the by-mode form that
    ``bymode.by_mode`` attached to ``op`` (an operation not exported with ``mode=`` refuses the keyword)."""
    kw = dict(kw)
    m = kw.pop("mode")
    if m is None or m == ():
        return op(*args, **kw)
    at_mode = getattr(op, "at_mode", None)
    if at_mode is None:
        raise TypeError(f"{op.__name__}() got an unexpected keyword argument 'mode'")
    return at_mode(*args, mode=m, **kw)


def _remember(result, op, args, kw):
    """A symbolic plain-layout result remembers the call that made it: ``subs`` re-runs it on the substituted
    arguments, so an instantiated result prints as the concrete operation does (core/canon.py)."""
    if type(result) is Layout and result.free_symbols():
        object.__setattr__(result, "_origin", (op, args, kw))  # Layout refuses plain assignment
    return result


def _by_cases(op, fn, args, kw, condition, asm, inherited, depth=1):
    """``fn(*args)`` once where ``condition`` holds and once where it does not (``decide.split``), each case
    free to split again; the pieces' layouts carry their case's assumptions and obligations. Where every
    piece gives the same layout with the same obligations, that one layout is the result."""
    name = fn.__name__.lstrip("_")  # a public operation's body may be its private _name

    def case():
        ctx = decide.current()
        stoken = _SPLITTING.set(ctx)
        try:
            r = fn(*args, **kw)
        except CaseSplit as s:
            if depth >= _MAX_SPLITS:
                raise UndecidedError(f"{name} on these symbolic layouts splits into more than {2 ** _MAX_SPLITS} "
                                     f"cases (the last on {s.condition}); add an assumption that decides "
                                     "some of them") from None
            _SPLITTING.reset(stoken)
            stoken = None
            return _by_cases(op, fn, args, kw, s.condition, ctx.assumptions, inherited, depth + 1)
        finally:
            if stoken is not None:
                _SPLITTING.reset(stoken)
        try:
            _refuse_pinned(ctx.obligations, name)
        except UndecidedError as e:
            return e
        return r

    pieces = []
    for p in flatten_pieces(decide.split(condition, case, assume=asm).pieces):
        v, obs = p.value, list(inherited) + [o for o in p.obligations if o not in inherited]
        if not isinstance(v, CuteVerifyError):
            v = _remember(_attach(v, tuple(obs), p.assumptions, tuple(p.notes)), op, args, kw)
        pieces.append(Piece(p.conditions, v, tuple(obs), p.notes, p.assumptions))
    return _merged(pieces, asm, op, args, kw) if depth == 1 else PiecewiseLayout(pieces)


def _merged(pieces, asm, op, args, kw):
    """One layout where every piece is the same layout text with the same obligations (the case was only a
    route to it), else the ``PiecewiseLayout``."""
    if not pieces:
        raise UndecidedError("no case of the split is consistent with the assumptions")
    if all(isinstance(p.value, CuteVerifyError) for p in pieces):
        raise pieces[0].value  # no case has a result (decide.split keeps at least one feasible case)
    first = pieces[0].value
    if not isinstance(first, CuteVerifyError) and (len(pieces) == 1 or all(
            str(p.value) == str(first) and set(p.obligations) == set(pieces[0].obligations) for p in pieces)):
        return _remember(_attach(first, tuple(pieces[0].obligations), asm, tuple(pieces[0].notes)), op, args, kw)
    return PiecewiseLayout(pieces)


def _per_piece(op, args, kw):
    """An operation on a ``PiecewiseLayout`` argument: applied to each piece's layout (under that piece's
    assumptions); a piece that holds an error keeps it. The result is piecewise with the same cases (split
    further where the operation splits)."""
    i = next(k for k, a in enumerate(args) if type(a) is PiecewiseLayout)
    pieces = []
    for p in args[i].pieces:
        v = p.value
        if not isinstance(v, CuteVerifyError):
            try:
                v = op(*args[:i], v, *args[i + 1:], **kw)
            except CuteVerifyError as e:
                v = e
        pieces.append(Piece(p.conditions, v, getattr(v, "obligations", p.obligations), p.notes, p.assumptions))
    return PiecewiseLayout(flatten_pieces(pieces))


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


def exact_div(a, b):
    """``a / b`` for a known multiple (ints stay ints)."""
    if type(a) is int and type(b) is int:
        return a // b
    import sympy
    return normalize(sympy.sympify(a) / b)
