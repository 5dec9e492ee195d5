"""Triton's GPU layouts (docs/model.md section 12): the layout attributes of TTGIR (``#ttg.blocked``,
``#ttg.nvidia_mma``, ``#ttg.dot_op``, ``#ttg.nvmma_shared``, ``#ttg.swizzled_shared``, ``#ttg.linear``) read as
text, converted to linear layouts as Triton's compiler does, and proved equal (or not) to CuTe layouts, atoms
and hardware specs.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``, ``prover``, ``hardware``, ``atoms``,
``analysis``.
"""
