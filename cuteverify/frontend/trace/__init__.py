"""``cuteverify trace``: verify a CuTe DSL kernel from its own traced program (issue 28).

A *capture* is the MLIR module the CuTe DSL traces for one ``cute.compile``, printed as generic MLIR with
locations, one ``.mlir`` file per compiled kernel, its first line a ``// cuteverify-capture: {json}`` header.
``capture`` runs the user's compile script in a subprocess and writes captures (``hook_run`` is the child's
entry point, ``stubs/`` the optional torch / triton import stubs, ``fakes`` the fake-tensor helpers for user
scripts); the other modules read captures and check them.

May import: every layer below the front ends, ``frontend.manifest`` and ``frontend.messages``; nothing below
imports this package. ``hook_run`` and ``fakes`` are the exceptions the other way: they import the CuTe DSL
(``cutlass``) at module level, so no module of cuteverify imports them (``hook_run`` runs as the child's script,
``fakes`` is for user scripts). This file imports nothing, so that importing one module does not load the rest.
"""
