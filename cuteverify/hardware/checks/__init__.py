"""Checks of the spec library and against it (docs/model.md sections 6 and 6.2): the self-check of a spec's
CUTLASS layout against its PTX formula (``selfcheck``; across processes ``checkall``, remembered by content
hash in ``cache``), whole families proved for every parameter (``family``), named hardware rules decided for
every value of the symbolic sizes (``rules``), a user's layout against a spec (``agree``), silicon evidence
(``evidence``) and the Blackwell modules that are not specs (``blackwell``).
May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware.library``,
``hardware.tma``, ``hardware.descriptors``.
"""
