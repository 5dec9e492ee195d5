import os
import sys

from hypothesis import settings

# Tests import the shared oracle helpers of tests/oracles/ by their own names (``import strategies``,
# ``from cpp_oracle.gxx import run_cpp``): one way, from every folder of tests/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracles"))

# The spec library's self-check cache stays off in tests: a test that monkeypatches the checker runs a checker
# whose source hash does not say so (tests/hardware/test_spec_cache.py turns it on, in a tmp dir).
os.environ["CUTEVERIFY_NO_SPEC_CACHE"] = "1"

# Reproducible property tests: the same examples on every run (CI verdicts must not depend on luck);
# `HYPOTHESIS_PROFILE=explore pytest` draws fresh random examples when hunting for bugs.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
