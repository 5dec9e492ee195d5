"""Import stubs for ``cuteverify trace capture --stub-torch``: this folder goes first on the child's
``PYTHONPATH`` so that ``import torch`` (and ``triton``, ``torch_c_dlpack_ext``) finds the inert packages here
instead of the real ones. Kernels such as FlashAttention-4 and QuACK import torch at module level but need
none of it to trace on a CPU; installing torch would pull several GB of CUDA libraries.

Nothing of cuteverify imports these modules; ``_cuteverify_stubs`` is their shared machinery. This
``__init__`` is never imported on the ``PYTHONPATH`` route (the folder itself is the path entry).
May import: the standard library only (the stubs run in the user's interpreter, without cuteverify).
"""
