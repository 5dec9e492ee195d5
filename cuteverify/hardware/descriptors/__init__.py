"""Matrix and instruction descriptors of the tensor cores (docs/model.md section 6.2): wgmma / UMMA shared-memory
matrix descriptors (``smem``) and their derivation from a smem layout (``smem_rules``), the tcgen05.mma
instruction descriptor (``umma_idesc``), tensor memory (``tmem``) and block-scaled GEMMs' scale-factor layouts
(``blockscaled``).
May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware.library``,
``hardware.checks.rules``.
"""
