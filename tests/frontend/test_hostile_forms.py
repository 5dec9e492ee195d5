"""Input forms kernels print, read back by function (issue 18): print_layout / print_latex tables, text in
every API call, '-' and @FILE, and the byte/element hint on refutations of swizzled layouts."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.core.notation.print_table import looks_like_table, parse_table

LAYOUTS = ["(4,8):(1,4)", "((2,2),(4,2)):((1,8),(2,16))", "(4,8):(8,1)", "((2,4),8):((0,2),8)", "(1,8):(0,1)",
           "((4,2),(2,4)):((2,32),(1,8))"]


def _size(s):
    return cv.size(s)


def print_layout(L):
    """CuTe's print_layout grid (C++ and pycute print the same rows)."""
    M, N = _size(L.shape[0]), _size(L.shape[1])
    out = [str(L), "    " + "".join(f"  {n:2} " for n in range(N))]
    for m in range(M):
        out += ["    " + "+----" * N + "+", f"{m:2}  " + "".join(f"| {int(L(m, n)):2} " for n in range(N)) + "|"]
    return "\n".join(out + ["    " + "+----" * N + "+"])


def print_latex(L):
    M, N = _size(L.shape[0]), _size(L.shape[1])
    cells = [f"\\node[fill=black!{10 * (L(m, n) % 4)}] at ({m},{n}) {{{L(m, n)}}};" for m in range(M)
             for n in range(N)]
    labels = [f"\\node at ({m},-1) {{\\Large{{\\texttt{{{m}}}}}}};" for m in range(M)]
    return "\n".join(["\\begin{tikzpicture}"] + cells + labels + ["\\end{tikzpicture}"])


@pytest.mark.parametrize("text", LAYOUTS)
@pytest.mark.parametrize("printer", [print_layout, print_latex])
def test_tables_read_back_as_the_same_function(text, printer):
    L = cv.parse(text)
    t = printer(L)
    assert looks_like_table(t)
    R = parse_table(t)
    assert [R(i) for i in range(cv.size(L))] == [L(i) for i in range(cv.size(L))]
    assert cv.are_equal(R, L).status == "proved"


def test_a_swizzled_table_is_no_layout():
    S = cv.parse("S<1,0,1> o 0 o (4,4):(4,1)")
    with pytest.raises(cv.ParseError, match="row 0, column 3"):
        parse_table(print_layout(S))


def test_tables_and_files_on_the_command_line(tmp_path):
    L = cv.parse("((2,2),(4,2)):((1,8),(2,16))")
    f = tmp_path / "t.txt"
    f.write_text(print_layout(L))
    r = CliRunner().invoke(main, ["equal", "@" + str(f), "-"], input=str(L))
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["algebra", "coalesce(A)", "--let", "A=@" + str(f)])
    assert r.exit_code == 0 and "result:" in r.output, r.output


def test_api_functions_take_text():
    assert str(cv.composition("(6,2):(8,2)", "(4,3):(3,1)")) == "((2,2),3):((24,2),8)"
    assert cv.size("(4,8):(1,4)") == 32 and cv.cosize("(4,8):(1,5)") == 39 and cv.rank("(4,8):(1,4)") == 2
    assert str(cv.zipped_divide("(64,16):(1,64)", "<32:1, 16:1>")) == "((32,16),(2,1)):((1,64),(32,0))"


def test_byte_element_hint_on_equal_and_agrees():
    v = mf.checked_equal(cv.parse("S<3,4,3> o 0 o (8,64):(64,1)"), cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"))
    assert v.status == "refuted" and "bytes and elements may be mixed" in v.reason and "S<3,3,3>" in v.reason
    # no hint where no other reading agrees
    v = mf.checked_equal(cv.parse("S<3,4,3> o 0 o (8,64):(64,1)"), cv.parse("(8,64):(1,8)"))
    assert v.status == "refuted" and "mixed" not in (v.reason or "")
    v = mf.checked_agrees(cv.parse("S<3,4,3> o 0 o (8,64):(64,1)"), "GMMA::Layout_K_SW128_Atom<half_t>")
    assert v.status == "refuted" and "16-bit elements" in v.reason
    # the CUTLASS print of the same atom is the element-level function: proved, no hint needed
    v = mf.checked_agrees(cv.parse("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"),
                          "GMMA::Layout_K_SW128_Atom<half_t>")
    assert v.status == "proved"


def test_contradictory_manifest_assumptions_cite_the_line():
    text = ('version: 1\nkernels:\n  k:\n    assume: ["M >= 5", "M <= 3"]\n    layouts: {A: "(M,4):(1,M)"}\n'
            "    claims:\n      - bijective: A\n")
    with pytest.raises(mf.ManifestError, match="contradict") as e:
        mf.load_text(text, "m.cute.yaml")
    assert e.value.line == 4 and "M >= 5; M <= 3" in str(e.value)


def test_internal_error_claims_exit_4_and_the_run_continues(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("simulated prover bug")
    text = "version: 1\nkernels:\n  k:\n    claims:\n      - bijective: '4:1'\n      - injective: '4:1'\n"
    claims = mf.load_text(text, "m.cute.yaml")
    monkeypatch.setattr(mf.P, "is_bijective", boom)
    res = mf.run(claims)
    assert [r["status"] for r in res] == ["error", "proved"]
    assert res[0]["error_kind"] == "internal" and mf.exit_code(res) == 4
    assert 'type="internal"' in mf.junit_xml(res)
