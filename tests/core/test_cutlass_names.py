"""The one reader and writer of CUTLASS names' template arguments (core/notation/cutlass_names.py), and the call
sites that read names through it (the spec resolver, UniversalCopy, the smem atoms, declared majors, --param,
smem_layout, the spec self-check's swizzles, C++ integers in expressions)."""
import pathlib
import re

import pytest

from cuteverify.algebra.expr import evaluate
from cuteverify.atoms.mma import make_tiled_mma
from cuteverify.atoms.operand_desc import declared_major
from cuteverify.core.notation.cutlass_names import (
    CppName, StaticInt, format_name, is_enum_name, is_name, is_template_name, read_args, read_int, read_name)
from cuteverify.core.swizzle import ComposedLayout
from cuteverify.errors import CommandLineError, ParseError, SpecError
from cuteverify.frontend.cli.common import parse_params
from cuteverify.hardware.checks.selfcheck import parse_swizzle
from cuteverify.hardware.descriptors.smem_rules import smem_layout
from cuteverify.hardware.library.catalog import default_library, family_name, resolve, universal_copy_bits

ROOT = pathlib.Path(__file__).resolve().parents[2]
# a CUTLASS name as the examples write it: a struct (optionally namespaced) and its <...> (no nested <> there)
_EXAMPLE_NAME = re.compile(r"\b(?:cute::)?(?:SM\d+_\w+|GMMA::\w+|UMMA::\w+|UniversalCopy)(?:<[^<>\"'\n]*>)?")


def _squeeze(text: str) -> str:
    """The text without blanks: the writer puts ", " between arguments, the examples sometimes ","."""
    return re.sub(r"\s+", "", text)


def _top_level_args(text: str) -> list:
    """The argument texts of ``NAME<...>`` cut at the commas of nesting depth one: a splitter of this test's
    own, sharing no code with the reader."""
    body = text[text.index("<") + 1:text.rindex(">")]
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if body.strip() else []


def test_every_library_name_round_trips():
    names = list(default_library())
    assert len(names) > 300
    for text in names:
        n = read_name(text)
        assert format_name(n) == text
        assert read_name(format_name(n)) == n
        if "<" in text:
            assert len(n.args) == len(_top_level_args(text)), text
            assert n.qualified == text[:text.index("<")].strip()
        else:
            assert n.args is None and n.qualified == text


def test_every_example_name_round_trips():
    texts = set()
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        texts |= set(_EXAMPLE_NAME.findall(path.read_text()))
    assert any("<" in t for t in texts) and len(texts) > 20
    for text in texts:
        n = read_name(text)
        assert _squeeze(format_name(n)) == _squeeze(text), text
        assert read_name(format_name(n)) == n
        if "<" in text:
            assert [_squeeze(format_name(a)) if isinstance(a, CppName) else str(a) for a in n.args] == \
                [_squeeze(a) for a in _top_level_args(text)], text


def test_the_arguments_cpp_sees():
    n = read_name("cute::SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::MN>")
    assert (n.scope, n.base) == (("cute",), "SM100_MMA_F16BF16_SS")
    assert n.args[3:5] == (128, 256)
    assert [a.enum() for a in n.args[5:]] == [("Major", "K"), ("Major", "MN")]
    assert [a.base for a in n.args[:3]] == ["half_t", "half_t", "float"]
    g = read_name("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>")
    assert [a.enum() for a in g.args] == [("Major", "K"), ("Major", "MN")]
    assert read_name("SM80_16x8x16_F32F16F16F32_TN") == CppName((), "SM80_16x8x16_F32F16F16F32_TN")
    assert read_name("GMMA::Layout_K_SW128_Atom<bf16>").args == (CppName((), "bf16"),)
    assert read_name("UniversalCopy<uint128_t>").args[0].base == "uint128_t"
    assert read_name("X<>").args == () and read_name("X").args is None
    assert read_name("Int<64>{}").value
    assert read_name("T<unsigned int, float>").args == ("unsigned int", CppName((), "float"))
    nested = read_name("A<B<G<1>, D>, E::F<_2>>")
    assert nested.args[0].args[0].args == (1,) and nested.args[1].args == (StaticInt(2),)
    assert format_name(nested) == "A<B<G<1>, D>, E::F<_2>>"
    assert read_name("B<C<1>>").args == (1,)  # cute::C<1>: the integral constant


@pytest.mark.parametrize("text", ["_64", "Int<64>", "cute::Int<64>{}", "C<64>", "64", " _64 "])
def test_static_ints(text):
    assert read_int(text) == 64 and read_name(f"T<{text}>").args == (64,)


def test_static_int_kinds():
    assert type(read_int("_64")) is StaticInt and repr(read_int("Int<8>")) == "_8"
    assert type(read_int("64")) is int and read_int("_-1") == -1 and read_int("-3") == -3
    for text in ("x", "_x", "64x", "Int<x>", "1+2", "", "-", "Int<64> 1"):
        assert read_int(text) is None, text
    assert read_args("half_t, 128, UMMA::Major::K") == (CppName((), "half_t"), 128, CppName(("UMMA", "Major"), "K"))
    assert read_args("  ") == ()


def test_predicates():
    assert is_enum_name("UMMA::Major::MN") and not is_enum_name("MN") and not is_enum_name("A::B<1>")
    assert is_template_name("GMMA::Layout_K_SW128_Atom<bf16>") and not is_template_name("GMMA_K_SW128")
    assert is_name("SM90_TMA_LOAD") and not is_name("(8,64):(64,1)") and not is_name("S<3,3,3> o 0 o 8:1")


@pytest.mark.parametrize("text, column", [
    ("A<", 3), ("A<1", 4), ("A<1 2>", 5), ("A::", 4), ("1A", 1), ("A<b> c", 6), ("A<,>", 3), ("A{", 3),
    ("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,>", 46), ("A<B<1>", 7), ("", 1), ("A<" + "9" * 5000 + ">", 3),
])
def test_malformed_names_name_the_column(text, column):
    with pytest.raises(ParseError) as e:
        read_name(text)
    assert e.value.column == column and e.value.source == "CUTLASS name"
    with pytest.raises(ParseError) as e:
        read_args("half_t, ")
    assert e.value.column == 9


def test_without_drops_leading_namespaces_everywhere():
    n = read_name("cute::SM120::BLOCKSCALED::X<cutlass::float_e2m1_t, cute::Int<4>>")
    assert n.without("cute", "cutlass", "SM120::BLOCKSCALED") == read_name("X<float_e2m1_t, _4>")


# ------------------------------------------------------------------------------- the call sites, as before

def test_resolver_reads_template_spellings():
    spec, p = resolve("SM100_MMA_F16BF16_SS<half_t, half_t, float, Int<128>, _256, UMMA::Major::K, UMMA::Major::MN>")
    assert (spec.name, p) == ("SM100_MMA_F16BF16_SS", {"M": 128, "N": 256, "a_major": 0, "b_major": 1})
    spec, p = resolve("cute::SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<cutlass::float_e2m1_t, cutlass::float_e2m1_t, "
                      "float, cutlass::float_ue8m0_t, 32>")
    assert spec.name == "SM120_16x8x64_TN_VS<float_e2m1_t, float_e2m1_t, float, float_ue8m0_t, VS>" and p == {"VS": 32}
    assert resolve("cute::GMMA::Layout_MN_SW64_Atom<cutlass::half_t>")[0].name == "GMMA::Layout_MN_SW64_Atom<half_t>"
    assert resolve("GMMA::Layout_K_SW128_Atom<bf16>")[0].name == "GMMA::Layout_K_SW128_Atom<half_t>"
    assert family_name("SM90::GMMA::MMA_64x8x32_S32S8S8_RS_TN") == ("SM90_64xNx32_S32S8S8_RS_TN", {"N": 8})
    assert family_name("SM90_64x128x16_F32BF16BF16_SS< GMMA::Major::MN , cute::GMMA::Major::K >") == \
        ("SM90_64xNx16_F32BF16BF16_SS", {"N": 128, "_args": [("enum", "Major", "MN"), ("enum", "Major", "K")]})
    assert resolve("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>")[1] == {"N": 128}
    with pytest.raises(SpecError, match="Major is one of K, MN"):
        resolve("SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::XX>")


def test_malformed_template_arguments_are_refused_with_the_column():
    # on main the unreadable {K} arguments were read as type names and dropped: the family resolved silently
    with pytest.raises(SpecError, match="column 55"):
        resolve("SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, {K}, {K}>")


def test_universal_copy_bits():
    assert universal_copy_bits("UniversalCopy<uint128_t>") == 128
    assert universal_copy_bits("cute::UniversalCopy<cute::uint64_t>") == 64
    assert universal_copy_bits("UniversalCopy<128>") == 128
    assert universal_copy_bits("UniversalCopy<half_t, half_t>") == 16
    assert universal_copy_bits("UniversalCopy", "f32") == 32
    assert universal_copy_bits("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>") is None
    assert universal_copy_bits("UniversalCopy<>") is None


def test_declared_majors_from_the_template_arguments():
    tm = make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, cute::GMMA::Major::MN>")
    assert (declared_major(tm, "A"), declared_major(tm, "B")) == ("K", "MN")
    assert declared_major(make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS"), "A") is None


def test_cli_param_enum_names():
    assert parse_params(["a_major=UMMA::Major::MN", "b_major= K ", "M=128"]) == {"a_major": "MN", "b_major": "K",
                                                                                 "M": 128}
    for bad in ("a_major=UMMA::", "a_major=A<1>", "a_major=1x"):
        with pytest.raises(CommandLineError, match="expected an integer or an enum name"):
            parse_params([bad])


def test_smem_layout_names_and_layouts():
    atom = smem_layout("GMMA::Layout_K_SW128_Atom<bf16>")
    assert isinstance(atom, ComposedLayout)
    assert smem_layout("S<3,3,3> o 0 o (8,64):(64,1)") == atom


def test_self_check_swizzles():
    spec = resolve("GMMA::Layout_K_SW128_Atom<bf16>")[0]
    assert parse_swizzle("S<3,4,3>", spec) == (3, 4, 3) and parse_swizzle(" Sw<2,4,3> ", spec) == (2, 4, 3)
    for bad in ("foo", "S<3,4>", "S<3,4,2>"):
        with pytest.raises(SpecError):
            parse_swizzle(bad, spec)


def test_cpp_integers_in_expressions():
    assert evaluate("_32") == 32
    assert evaluate("size(Int<32>)") == 32  # on main: an integer expression expected at column 6
