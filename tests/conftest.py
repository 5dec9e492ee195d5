import os
import sys

from hypothesis import settings

# Tests import helpers that live beside them (strategies, the DSL oracle).
sys.path.insert(0, os.path.dirname(__file__))

# Reproducible property tests: the same examples on every run (CI verdicts must not depend on luck);
# `HYPOTHESIS_PROFILE=explore pytest` draws fresh random examples when hunting for bugs.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
