"""Review findings on general composed layouts ``A o off o B`` (``c -> A(off + B(c))``, docs/model.md section 4):
(1) ``composition(L, A o 0 o B)`` is ``(L o A) o B`` only where B's image lies in ``[0, size(A))``, refused
elsewhere; (2) a negative index reaching an A with ``E<i>`` or F2 strides is refused by name (evaluation and
prover), an F2 value handed to A is an integer; (3) the offset is added as an integer to the integer an F2
value is. Checked with an evaluator written here (it reads the printed text, shares no code with cuteverify).
"""
import random

import pytest

import cuteverify as cv
from cuteverify.errors import NotAdmissibleError
from cuteverify.prover import tables

P = cv.parse


# --- an independent evaluator: ``shape:stride`` with integer or ``^v`` (F2) leaves, chains ``F o off o ...`` ----

def _tree(text):
    """A printed int tuple (``(2,(3,4))``, ``^5``, ``-1``) as nested Python tuples; ``^v`` -> ("^", v)."""
    pos = 0

    def node():
        nonlocal pos
        if text[pos] == "(":
            pos += 1
            out = [node()]
            while text[pos] == ",":
                pos += 1
                out.append(node())
            assert text[pos] == ")", text
            pos += 1
            return tuple(out)
        f2 = text[pos] == "^"
        pos += f2
        start = pos
        while pos < len(text) and (text[pos].isdigit() or text[pos] == "-"):
            pos += 1
        v = int(text[start:pos])
        return ("^", v) if f2 else v

    t = node()
    assert pos == len(text), text
    return t


def _leaves(t):
    if type(t) is tuple and not (len(t) == 2 and t[0] == "^"):
        return [x for e in t for x in _leaves(e)]
    return [t]


def lay(text):
    s, d = text.split(":")
    return list(zip(_leaves(_tree(s)), _leaves(_tree(d))))


def ev(modes, x):
    """A plain layout at the integer ``x`` (colexicographic digits, the last one unbounded; C++ division:
    ``L(-x) == -L(x)``); F2 strides combine by XOR and the result is an int."""
    if x < 0:
        return -ev(modes, -x)
    if all(type(d) is tuple for _, d in modes):
        acc = 0
        for k, (s, d) in enumerate(modes):
            c = x if k == len(modes) - 1 else x % s
            x = x if k == len(modes) - 1 else x // s
            acc ^= c * d[1]
        return acc
    acc = 0
    for k, (s, d) in enumerate(modes):
        c = x if k == len(modes) - 1 else x % s
        x = x if k == len(modes) - 1 else x // s
        acc += c * d
    return acc


def composed_ev(text, i):
    parts = text.split(" o ")
    v = ev(lay(parts[-1]), i)
    for k in range(len(parts) - 3, -1, -2):
        v = ev(lay(parts[k]), int(parts[k + 1]) + v)
    return v


def size_of(text):
    n = 1
    for s, _ in lay(text.split(" o ")[-1]):
        n *= s
    return n


def composed_values(text):
    return [composed_ev(text, i) for i in range(size_of(text))]


def _rand_plain(rng, strides, max_rank=3):
    r = rng.randint(1, max_rank)
    shape = [rng.choice([1, 2, 2, 3, 4]) for _ in range(r)]
    stride = [rng.choice(strides) for _ in range(r)]
    if r == 1:
        return f"{shape[0]}:{stride[0]}"
    return f"({','.join(map(str, shape))}):({','.join(map(str, stride))})"


# --- finding 1: composition with a composed right operand ------------------------------------------------------

def test_composition_past_the_inner_layouts_size_is_refused():
    L, C = "(2,3):(3,1)", "2:1 o 0 o 4:1"  # C(i) = 0,1,2,3 reads 2:1 past its size
    assert [ev(lay(L), v) for v in composed_values(C)] == [0, 3, 1, 4]
    with pytest.raises(NotAdmissibleError, match=r"inside A's domain \[0, 2\)"):
        cv.composition(L, C)
    with pytest.raises(NotAdmissibleError, match="inside A's domain"):  # negative values leave it too
        cv.composition(L, "(2,3):(1,2) o 0 o 4:-1")


def test_composition_with_a_composed_right_operand_is_exact_or_refused():
    rng = random.Random(2026)
    admitted = refused_outside = 0
    for _ in range(400):
        L = _rand_plain(rng, [0, 1, 2, 3, 4, 6])
        A = _rand_plain(rng, [0, 1, 2, 3, 4, -1])
        B = _rand_plain(rng, [0, 1, 1, 2, 3, -1], max_rank=2)
        C = f"{A} o 0 o {B}"
        want = [ev(lay(L), v) for v in composed_values(C)]
        n_a = size_of(A)
        inside = all(0 <= ev(lay(B), i) < n_a for i in range(size_of(B)))
        try:
            R = cv.composition(L, C)
        except NotAdmissibleError:
            refused_outside += not inside
            continue
        assert inside, (L, C, str(R))
        got = [ev(lay(str(R)), i) for i in range(size_of(C))]
        assert got == want, (L, C, str(R))
        admitted += 1
    assert admitted > 100 and refused_outside > 50


def test_symbolic_composition_only_where_the_range_is_proved():
    C_in, C_out = "(M,4):(1,M) o 0 o (M,2):(1,M)", "(M,4):(1,M) o 0 o (M,8):(1,M)"
    R = cv.composition("(M,4):(4,1)", C_in)
    for m in (2, 3):
        c = C_in.replace("M", str(m))
        got = [ev(lay(str(R.subs(M=m))), i) for i in range(size_of(c))]
        assert got == [ev(lay(f"({m},4):(4,1)"), v) for v in composed_values(c)]
    with pytest.raises(NotAdmissibleError, match="inside A's domain"):
        cv.composition("(M,4):(4,1)", C_out)


# --- finding 2: coordinate/F2 outer functions at negative or F2 indices ---------------------------------------

NEGATIVE = ["(6,2):(4@0,3@1) o 0 o 4:-1", "(2,2):(^4,^8) o 0 o (3):(-16)", "8:^1 o 0 o 4:-1"]


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative_index_into_coordinate_or_f2_strides_is_refused_by_name(text, monkeypatch):
    with pytest.raises(NotAdmissibleError, match="negative index"):
        P(text)(1)
    with pytest.raises(NotAdmissibleError, match="negative index"):
        P(text).values()
    for budget in (tables.COMPOSED_ENUM_LIMIT, 1):  # the value table, and the reduction past it
        monkeypatch.setattr(tables, "COMPOSED_ENUM_LIMIT", budget)
        for v in (cv.is_injective(text), cv.is_bijective(text), cv.are_equal(text, text)):
            assert v.status == "unknown" and "negative index" in v.reason and "internal" not in v.reason


@pytest.mark.parametrize("text", ["(2,2):(^1,^2) o 0 o (2,2):(^1,^2)",
                                  "(4,6,4):(6,1,24) o 0 o (1,4,6):(^1,^6,^1) o 6 o 3:2",
                                  "(4,4):(1,4) o 3 o (2,2):(^1,^3)"])
def test_f2_values_reach_the_next_function_as_integers(text):
    want = composed_values(text)
    L = P(text)
    assert [int(L(i)) for i in range(len(want))] == want
    assert [int(v) for v in L.values()] == want
    inj = len(set(want)) == len(want)
    assert cv.is_injective(text).status == ("proved" if inj else "refuted")


# --- finding 3: the offset is an integer addition ----------------------------------------------------------------

def test_offset_adds_as_an_integer_to_f2_values():
    text = "8:1 o 1 o (2,2):(^1,^2)"
    assert composed_values(text) == [1, 2, 3, 4]
    assert [int(v) for v in P(text).values()] == [1, 2, 3, 4]
    v = cv.is_bijective(text)
    assert v.status == "refuted"
    assert cv.is_injective(text).status == "proved"


def test_random_f2_inner_layouts_with_offsets():
    rng = random.Random(3)
    for _ in range(200):
        A = _rand_plain(rng, [0, 1, 2, 3, 4])
        B = _rand_plain(rng, ["^1", "^2", "^3", "^4", "^6"], max_rank=2)
        text = f"{A} o {rng.randint(0, 5)} o {B}"
        want = composed_values(text)
        assert [int(v) for v in P(text).values()] == want, text
        inj = len(set(want)) == len(want)
        bij = sorted(want) == list(range(len(want)))
        assert cv.is_injective(text).status == ("proved" if inj else "refuted"), text
        assert cv.is_bijective(text).status == ("proved" if bij else "refuted"), text


def test_slicing_an_f2_inner_layout_hands_out_an_integer_offset_or_refuses():
    text = "16:1 o 1 o (2,2):(^1,^2)"
    sub, off = cv.slice_and_offset(P(text), (None, 1))
    assert [int(sub(i)) + off for i in range(2)] == [composed_ev(text, i + 2) for i in range(2)]
    with pytest.raises(NotAdmissibleError, match="shares bits"):
        cv.slice_and_offset(P("16:1 o 1 o (2,2):(^1,^3)"), (None, 1))
