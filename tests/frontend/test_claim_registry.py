"""The manifest's claim kinds are one registry (``cuteverify.frontend.manifest.claims.KINDS``): each kind has its
schema fragment, reader, text and procedure; the shipped schema and the docs table follow it; a kind registered
here is loaded, validated, printed and run with no other code touched; and a loaded claim carries values, so the
FA2 example parses each of its layout texts once."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cuteverify.core.layout import Layout
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest.claims import KINDS, claim_schema, register
from cuteverify.frontend.manifest.kind import LAYOUT_REF, ClaimKind, Ref
from cuteverify.prover import Counterexample, Verdict

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_has_schema_reader_text_and_procedure():
    assert len(KINDS) == 21
    for name, k in KINDS.items():
        assert isinstance(k, ClaimKind) and k.name == name
        assert isinstance(k.schema, dict) and k.schema
        assert callable(k.read) and callable(k.text) and callable(k.decide)


def test_shipped_schema_is_the_registrys():
    shipped = json.loads((ROOT / "specs" / "manifest_schema.json").read_text())
    regen = ('python -c "import json; from cuteverify.frontend.manifest import full_schema; '
             'print(json.dumps(full_schema(), indent=2))" > specs/manifest_schema.json')
    assert shipped["$defs"]["claim"] == claim_schema(), f"regenerate the schema: {regen}"
    assert shipped == mf.full_schema() == mf.schema()
    assert list(shipped["$defs"]["claim"]["properties"])[4:] == list(KINDS)  # after name, expect, note, at


def _docs_table_kinds():
    text = (ROOT / "docs" / "model.md").read_text()
    head = text.index("| kind | proved when | decided by |")
    rows = []
    for line in text[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(re.match(r"\|\s*`(\w+)`\s*\|", line).group(1))
    return rows


def test_docs_list_exactly_the_registrys_kinds():
    assert _docs_table_kinds() == list(KINDS)
    readme = (ROOT / "README.md").read_text()
    para = readme[readme.index("Claim kinds:"):]
    para = para[:para.index("\n\n")]
    named = set(re.findall(r"`(\w+)`", para))
    assert set(KINDS) <= named, f"README's claim kinds miss {set(KINDS) - named}"


def _size_claim(k, body, bp):
    if not isinstance(body, dict):
        raise k.error("size takes {layout, size}", bp)
    return {"layout": k.ref(body["layout"], bp + ("layout",)), "size": body["size"]}


def _size_verdict(a, assume):
    shape = a["layout"].value.shape
    n = 1
    for x in re.findall(r"\d+", str(shape)):  # the shape's leaves multiplied, independently of core.size
        n *= int(x)
    if n == a["size"]:
        return Verdict("proved", claim=f"size({a['layout']}) == {a['size']}", method="toy")
    return Verdict("refuted", claim=f"size({a['layout']}) == {a['size']}", method="toy",
                   counterexample=Counterexample(note=f"the size is {n}"))


TOY = ClaimKind("toy_size",
                {"type": "object", "additionalProperties": False, "required": ["layout", "size"],
                 "properties": {"layout": LAYOUT_REF, "size": {"type": "integer", "minimum": 1}}},
                _size_claim, lambda a: f"size of {a['layout']} is {a['size']}", _size_verdict)


@pytest.fixture
def toy():
    register(TOY)
    try:
        yield TOY
    finally:
        del KINDS[TOY.name]


MANIFEST = textwrap.dedent("""\
    version: 1
    kernels:
      k:
        layouts:
          sA: "(4,8):(8,1)"
        claims:
          - toy_size: {layout: sA, size: 32}
          - toy_size: {layout: "(2,3):(3,1)", size: 7}
          - bijective: sA
    """)


def test_a_registered_kind_is_loaded_validated_printed_and_run(toy):
    claims = mf.load_text(MANIFEST)
    assert [c.kind for c in claims] == ["toy_size", "toy_size", "bijective"]
    assert isinstance(claims[1].args["layout"], Ref) and isinstance(claims[1].args["layout"].value, Layout)
    results = mf.run(claims)
    assert [r["claim"] for r in results] == ["size of sA is 32", "size of (2,3):(3,1) is 7", "bijective sA"]
    assert [r["status"] for r in results] == ["proved", "refuted", "proved"]
    assert mf.exit_code(results) == 1
    # its schema fragment is the manifest's: a field it does not take is a schema error at the claim
    with pytest.raises(mf.ManifestError, match="schema: at kernels/k/claims/0/toy_size"):
        mf.load_text(MANIFEST.replace("size: 32}", "size: 32, tile: 4}"))
    # and its reader checks references with the claim's line
    with pytest.raises(mf.ManifestError, match="unknown layout name 'sB'") as e:
        mf.load_text(MANIFEST.replace("layout: sA, size: 32", "layout: sB, size: 32"))
    assert e.value.line == 7


def test_an_unregistered_kind_is_refused(toy):
    del KINDS[TOY.name]
    try:
        with pytest.raises(mf.ManifestError, match="schema"):
            mf.load_text(MANIFEST)
    finally:
        register(TOY)
    with pytest.raises(Exception, match="taken"):
        register(TOY)


def test_claims_carry_values_and_pickle():
    import pickle
    claims = mf.load(ROOT / "examples" / "fa2_sm80.cute.yaml")
    agrees = next(c for c in claims if c.kind == "agrees" and c.args.get("tiled_mma") is not None)
    assert type(agrees.args["tiled_mma"].value).__name__ == "TiledMma"
    back = pickle.loads(pickle.dumps(claims))
    assert [c.text for c in back] == [c.text for c in claims]
    assert [mf.run_claim(c)["status"] for c in back[:6]] == [mf.run_claim(c)["status"] for c in claims[:6]]


# counts the parses of CuTe text (every reader of core.notation.parse builds one _Parser) while the FA2 example
# is loaded and run in a fresh interpreter, each attributed to the module that asked for it
_COUNT = """
import collections, json, sys, traceback
from cuteverify.core.notation import parse as NP
from cuteverify.frontend import manifest as mf
seen = []
orig = NP._Parser.__init__
def init(self, text, source):
    callers = [f.filename for f in traceback.extract_stack()[:-1]
               if "cuteverify" in f.filename and "notation" not in f.filename]
    seen.append((text, callers[-1].replace("\\\\", "/") if callers else ""))
    orig(self, text, source)
NP._Parser.__init__ = init
results = mf.run(mf.load(sys.argv[1]))
print(json.dumps({"seen": seen, "statuses": [r["status"] for r in results]}))
"""


def test_fa2_parses_each_of_its_layout_texts_once():
    path = ROOT / "examples" / "fa2_sm80.cute.yaml"
    p = subprocess.run([sys.executable, "-c", _COUNT, str(path)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["statuses"].count("proved") == 18 and out["statuses"].count("refuted") == 2
    # the parses the manifest asks for (its entries, inline texts, claims, smem_optimal's problem): the spec
    # library's own texts are parsed by hardware/ and atoms/ (a question of the spec -> layout door, not of claims)
    mine = [t for t, who in out["seen"] if re.search(r"cuteverify/(frontend|synth)/|algebra/expr", who)]
    library = [t for t, who in out["seen"] if not re.search(r"cuteverify/(frontend|synth)/|algebra/expr", who)]
    source = path.read_text()
    assert mine and all(t in source for t in mine)
    assert len(mine) <= len(set(mine)), sorted(t for t in set(mine) if mine.count(t) > 1)
    # everything together (64 parses before claims carried values, issue 27): one parse per distinct text, but
    # for a text both the manifest and the spec library write (sKAtom is the GMMA SW128 atom's own text)
    both = set(mine) & set(library)
    assert len(out["seen"]) <= len(set(mine) | set(library)) + len(both), sorted(
        t for t in set(mine + library) if (mine + library).count(t) > 1)
