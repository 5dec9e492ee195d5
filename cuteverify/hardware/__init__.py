"""The hardware spec library (docs/model.md section 6): YAML specs of MMA/copy atoms and shared-memory
atoms, each with a CUTLASS TV layout and an independent PTX formula, their self-check, agreement of user
layouts with them, and the silicon evidence that confirmed them.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``.
"""

