"""Verify a CuTe DSL kernel from its own trace (issue 28; docs/model.md section 10.1): ``mlir`` reads a capture
(the traced module printed as generic MLIR with locations), ``types`` gives typed views of its tensors and
layouts; the capture, the mapping of captured objects to manifest claims and the ``trace`` verb build on them.

A capture is one ``.mlir`` file per ``cute.compile``, its first line a ``// cuteverify-capture: {json}`` header.
``capture`` runs the user's compile script in a subprocess and writes captures (``hook_run`` is the child's
entry point, ``stubs/`` the optional torch / triton import stubs, ``fakes`` the fake-tensor helpers for user
scripts).

May import: every layer below the front ends and ``frontend.manifest``; nothing else in the package imports it.
``hook_run`` and ``fakes`` import the CuTe DSL (``cutlass``) at module level, so no module of cuteverify imports
them (``hook_run`` runs as the child's script, ``fakes`` is for user scripts).
"""
