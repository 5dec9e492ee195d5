"""The default library self-checks each spec the first time it hands it out (docs/model.md section 6): a
process pays for the specs it uses, and no spec reaches a decision unchecked."""
from __future__ import annotations

import pytest

from cuteverify.errors import SpecError, SpecInconsistent
from cuteverify.hardware.library import catalog as L
from cuteverify.hardware.library.loader import ENV_VAR
from test_specs import GOOD_SPEC, _write


def _counting(monkeypatch):
    seen = []
    real = L.self_check

    def check(spec):
        seen.append(spec.name)
        return real(spec)
    monkeypatch.setattr(L, "self_check", check)
    return seen


def test_a_lazy_library_checks_what_it_hands_out_once(monkeypatch):
    seen = _counting(monkeypatch)
    lib = L.load(check="lazy")
    assert seen == []
    assert lib.peek("SM80_16x8x16_F32F16F16F32_TN").kind == "mma" and seen == []
    lib["SM80_16x8x16_F32F16F16F32_TN"]
    lib.get("SM80_16x8x16_F32F16F16F32_TN")
    assert seen == ["SM80_16x8x16_F32F16F16F32_TN"]


def test_a_lazy_library_refuses_an_inconsistent_spec_where_it_is_used(tmp_path, monkeypatch):
    bad = GOOD_SPEC.replace('layout: "((4,8),2):((16,1),8)"', 'layout: "((4,8),2):((16,1),1)"')
    assert bad != GOOD_SPEC
    monkeypatch.setenv(ENV_VAR, str(_write(tmp_path, "bad.yaml", bad)))
    lib = L.load(check="lazy")
    assert "MY_8x8x4_F64_TN" in lib and lib.peek("MY_8x8x4_F64_TN").kind == "mma"
    for _ in range(2):  # refused every time, never handed out unchecked
        with pytest.raises(SpecInconsistent):
            lib["MY_8x8x4_F64_TN"]
    lib["SM80_16x8x16_F32F16F16F32_TN"]  # the others are unaffected


def test_a_lazy_library_validates_a_users_file_against_the_schema(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(_write(tmp_path, "odd.yaml", GOOD_SPEC.replace(
        "kind: mma", "kind: mma\n    colour: blue", 1))))
    with pytest.raises(SpecError, match="schema"):
        L.load(check="lazy")


def test_resolved_names_are_checked(monkeypatch):
    seen = _counting(monkeypatch)
    monkeypatch.setattr(L, "_DEFAULT", [L.load(check="lazy")])
    spec, params = L.resolve("SM90_64x128x16_F32BF16BF16_SS")
    assert params == {"N": 128} and spec.name in seen
