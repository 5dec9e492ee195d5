"""Generic capture wrapper: registers the hook globally on the CuTe DSL, then runs a user script
unchanged (runpy), the way `cuteverify trace capture -- python script.py` would.
usage: CAPTURE_OUT=x.mlir python capture_run.py script.py [args...]"""
import sys, runpy
import capture_common
from cutlass.base_dsl.dsl import BaseDSL
import cutlass.cute  # make sure the CuTe DSL singleton is importable
from cutlass.cutlass_dsl import CuTeDSL
dsl = CuTeDSL._get_dsl()
dsl.register_trace_finalize_hook(capture_common.hook)
print(f"[capture_run] registered hook on {type(dsl).__name__}", file=sys.stderr)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
