"""The machinery of cuteverify's import stubs (``torch``, ``triton``, ``torch_c_dlpack_ext``): every attribute
of a stub package, and every submodule imported from it, is an *inert* object.

An inert object is a class whose metaclass is :class:`Inert`, so that it can stand wherever kernel libraries put
torch objects at import time:
- as a value: calling it, indexing it, arithmetic and ``|`` give inert objects; it is falsy, iterates as empty,
  converts to 0, and every ordering comparison is False, either side (so ``max(torch._dynamo.config.x, 64)``
  works, and an import-time check such as QuACK's ``bits > torch.float8_e4m3fn.itemsize * 8`` passes);
- as a type: ``isinstance(torch.float16, torch.dtype)`` holds (inert objects are instances of every inert
  class), while ``isinstance(real_object, torch.Tensor)`` does not; ``class M(torch.nn.Module)`` subclasses
  ``object``;
- as a decorator: ``@torch.compile``, ``@torch.library.custom_op(...)`` return a wrapper that calls the
  function and whose attributes (``.register_fake``, ``.register_autograd``, ...) are identity decorators.
Nothing here runs any torch semantics: code that needs torch's results (not just its names) fails or sees
inert values.
"""
import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = ("torch", "torch_c_dlpack_ext", "triton")


def _dunder(name):
    return name.startswith("__") and name.endswith("__")


class Inert(type):
    """Metaclass of the inert objects (see the module docstring)."""

    def __getattr__(cls, name):
        if _dunder(name):
            raise AttributeError(name)
        return inert(f"{cls.__module__}.{cls.__qualname__}.{name}")

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], Inert):
            return Decorated(args[0])
        return inert(f"{cls.__module__}.{cls.__qualname__}()")

    def __instancecheck__(cls, obj):
        return isinstance(obj, Inert)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, Inert)

    def __getitem__(cls, item):
        return cls

    def __bool__(cls):
        return False

    def __iter__(cls):
        return iter(())

    def __int__(cls):
        return 0

    __index__ = __int__

    def __float__(cls):
        return 0.0

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __add__(cls, other):
        return cls

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = __add__
    __or__ = __ror__ = __and__ = __rand__ = __add__

    __hash__ = type.__hash__


def inert(qualname: str) -> Inert:
    """A fresh inert object named ``qualname`` (``torch.float16``, ``torch.library.custom_op()``, ...)."""
    head, _, rest = qualname.partition(".")
    return Inert(qualname.rsplit(".", 1)[-1], (), {"__qualname__": rest or head, "__module__": head})


class Decorated:
    """What a stubbed decorator returns for a function: calls it unchanged; every public attribute is a
    decorator factory that returns functions unchanged (``@op.register_fake``, ``op.register_autograd(f)``)."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name):
        if _dunder(name):
            raise AttributeError(name)
        return _identity_decorator


def _identity_decorator(*args, **kwargs):
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda fn: fn


class StubModule(types.ModuleType):
    """A stub module: a missing attribute is an inert object, remembered so that it is the same object next
    time (``torch.float16 is torch.float16``)."""

    def __getattr__(self, name):
        if _dunder(name):
            raise AttributeError(name)
        value = inert(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _SubmoduleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every submodule of a stubbed package (``torch.library``, ``torch._dynamo.config``) as a stub."""

    def find_spec(self, fullname, path, target=None):
        if "." in fullname and fullname.split(".", 1)[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def adopt(name: str, version: str = "0.0.0+cuteverify.stub"):
    """Make the already-imported package ``name`` a stub module and serve its submodules as stubs."""
    module = sys.modules[name]
    module.__class__ = StubModule
    module.__version__ = version
    if not any(isinstance(f, _SubmoduleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SubmoduleFinder())
