import os
import sys

# Tests import helpers that live beside them (strategies, the DSL oracle).
sys.path.insert(0, os.path.dirname(__file__))
