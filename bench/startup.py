"""Start-up benchmark (issue 30): fresh processes, CPU time (user + sys of the child), median of ``--runs``.

* ``import cuteverify.frontend.manifest``, and ``import cuteverify.frontend.manifest`` + the default spec library with the
  self-check cache warm (the cost a ``check`` run pays before its first claim);
* a manifest kernel with ``symbols: [S]``, ``assume: ["S >= 1"]`` and one claim on a concrete layout, checked
  in-process: the simple assumption (never builds a sympy term) against its peer ``S >= 0 + 1`` (the same fact
  through the general parser, which builds sympy terms and asks Z3), each run saying whether sympy's and
  Z3's modules were really imported (``'sympy.core' in sys.modules``: the lazy module object of
  ``symbolic/lazy.py`` sits in ``sys.modules['sympy']`` either way). Prints figures and the ratio.

    python bench/startup.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHECK = textwrap.dedent("""
    import sys, resource
    from click.testing import CliRunner
    from cuteverify.frontend.cli.main import main
    r = CliRunner().invoke(main, ["check", sys.argv[1]])
    assert r.exit_code == 0, r.output
    print("sympy" if "sympy.core" in sys.modules else "-", "z3" if "z3.z3" in sys.modules else "-")
""")

_MANIFEST = """version: 1
kernels:
  k:
    symbols: [S]
    assume: ["{fact}"]
    layouts:
      a: "(4,8):(8,1)"
    claims:
      - bijective: a
"""


def _child_cpu(args, env) -> tuple:
    """(CPU seconds of one child process, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        raise SystemExit(f"failed: {args}: {p.stdout}{p.stderr}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, p.stdout.strip()


def _median(runs, args, env) -> tuple:
    got = [_child_cpu(args, env) for _ in range(runs)]
    return statistics.median(t for t, _ in got), got[-1][1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CUTEVERIFY_CACHE_DIR": tmp}
        env.pop("CUTEVERIFY_NO_CACHE", None)
        env.pop("CUTEVERIFY_NO_SPEC_CACHE", None)
        subprocess.run([sys.executable, "-c", "from cuteverify.frontend.cli.main import main; main()", "spec", "check"],
                       capture_output=True, cwd=ROOT, env=env)  # warms the self-check cache for the default library
        t_imp, _ = _median(a.runs, ["-c", "import cuteverify.frontend.manifest"], env)
        t_lib, _ = _median(a.runs, ["-c", "import cuteverify.frontend.manifest, cuteverify.hardware as h; "
                                          "h.default_library()['SM80_16x8x16_F32F16F16F32_TN']"], env)
        t_py, _ = _median(a.runs, ["-c", "pass"], env)
        print(f"python -c pass: {t_py * 1e3:.0f} ms CPU (the interpreter alone)")
        print(f"import cuteverify.frontend.manifest: {t_imp * 1e3:.0f} ms CPU; + default library and one spec "
              f"(self-check cache warm): {t_lib * 1e3:.0f} ms")
        res = {}
        for label, fact in (("S >= 1", "S >= 1"), ("S >= 0 + 1", "S >= 0 + 1")):
            m = Path(tmp) / f"k{len(res)}.cute.yaml"
            m.write_text(_MANIFEST.format(fact=fact))
            res[label] = _median(a.runs, ["-c", _CHECK, str(m)], env)
        (fast, fmods), (slow, smods) = res["S >= 1"], res["S >= 0 + 1"]
        print(f"check, concrete layout, assume 'S >= 1':     {fast * 1e3:.0f} ms CPU (modules loaded: {fmods})")
        print(f"check, concrete layout, assume 'S >= 0 + 1': {slow * 1e3:.0f} ms CPU (modules loaded: {smods})")
        print(f"ratio simple / general: {fast / slow:.2f}  (saved {(slow - fast) * 1e3:.0f} ms CPU)")


if __name__ == "__main__":
    main()
