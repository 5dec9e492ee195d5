"""from_copy reads the ?{div=N} facts a gmem text gives its own dynamic values (issue 28: a traced gmem tensor
checked with no kernel assumptions was refuted by a stride the facts exclude)."""
from cuteverify import parse
from cuteverify.hardware.tma.copy import from_copy


def test_divisibility_facts_of_the_gmem_text_are_used():
    g = parse("(?{div=8},?{div=8}):(1,?{i64 div=64})")
    _, v = from_copy(g, "S<3,3,3> o 0 o (64,8):(1,64)", "f16")
    assert "not a multiple of 16" not in str(v.counterexample), v.counterexample
    assert "stride_alignment" not in str(v.reason or "")
    # without the fact the same stride may be 2 bytes: refuted by the alignment rule
    _, w = from_copy(parse("(?{div=8},?{div=8}):(1,?)"), "S<3,3,3> o 0 o (64,8):(1,64)", "f16")
    assert "stride_alignment" in str(w.reason)


def test_multicast_walks_the_box_from_the_outermost_mode_inwards():
    """A box (64,3,1) over 2 CTAs: the outermost mode (1) passes both CTAs on, then 3 and 2 divide neither way:
    CUTLASS's make_tma_copy_desc refuses it. The rule used to look at the outermost mode only (1 divides 2) and
    proved it."""
    d, v = from_copy("(64,6,4):(1,128,768)", "(64,3,1):(1,64,0)", "f16", multicast=2)
    assert d.fields()["box_dim"] == (64, 3, 1) and v.status == "refuted" and "multicast" in str(v.reason)
    _, ok = from_copy("(64,6,4):(1,128,768)", "(64,4,1):(1,64,0)", "f16", multicast=2)
    assert ok.status == "proved"
