"""TMA descriptors (docs/model.md section 6.2): the rules of ``cuTensorMapEncodeTiled`` (``rules``) and the
descriptor they judge (``tiled``), CUTLASS's ``make_tma_copy`` checks (``copy``), the box it finds and where
it lands (``box``), and im2col descriptors (``im2col``).
May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware.library``,
``hardware.checks.rules``.
"""
