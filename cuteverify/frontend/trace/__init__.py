"""Verify a CuTe DSL kernel from its own trace (issue 28; docs/model.md section 10.1): ``mlir`` reads a capture
(the traced module printed as generic MLIR with locations), ``types`` gives typed views of its tensors and
layouts; the capture, the mapping of captured objects to manifest claims and the ``trace`` verb build on them.
May import: every layer below the front ends and ``frontend.manifest``; nothing else in the package imports it.
"""
