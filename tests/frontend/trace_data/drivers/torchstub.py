"""Import stub serving `torch` and `torch.*` as inert objects (no torch install).
Activate with `import torchstub; torchstub.install()` before importing FA4 / QuACK."""
import sys, types, importlib.abc, importlib.machinery

class _InertMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _inert(f"{cls.__qualname__}.{name}")
    def __call__(cls, *a, **k):
        # decorators: @torch.library.custom_op(...) / @torch.compile etc.: return the function unchanged
        if len(a) == 1 and callable(a[0]) and not k and not isinstance(a[0], _InertMeta):
            return _OpWrap(a[0])
        return _inert(f"{cls.__qualname__}()")
    def __getitem__(cls, item):
        return cls
    def __or__(cls, other):
        return cls
    __ror__ = __or__
    def __instancecheck__(cls, obj):
        # isinstance(torch.float16, torch.dtype) holds; isinstance(<real object>, torch.Tensor) does not
        return isinstance(type(obj), _InertMeta) or isinstance(obj, _InertMeta)
    def __subclasscheck__(cls, sub):
        return isinstance(sub, _InertMeta)
    def __lt__(cls, other):
        return False
    __gt__ = __le__ = __ge__ = __lt__
    def __add__(cls, other):
        return cls
    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __add__
    def __int__(cls):
        return 0
    __index__ = __int__
    def __iter__(cls):
        return iter(())
    def __bool__(cls):
        return False
    def __mro_entries__(cls, bases):
        return (object,)

class _OpWrap:
    """What a torch decorator (custom_op, compile, no_grad, ...) returns: calls the function; any
    attribute (register_fake, register_autograd, ...) is an identity decorator."""
    def __init__(self, f):
        self.__wrapped__ = f
        self.__name__ = getattr(f, "__name__", "op")
        self.__doc__ = getattr(f, "__doc__", None)
    def __call__(self, *a, **k):
        return self.__wrapped__(*a, **k)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: (a[0] if len(a) == 1 and callable(a[0]) and not k else (lambda f: f))

def _inert(name):
    return _InertMeta(name.rsplit(".", 1)[-1], (), {"__qualname__": name, "__module__": "torch"})

class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        v = _inert(f"{self.__name__}.{name}")
        setattr(self, name, v)
        return v

STUBBED = {"torch", "torch_c_dlpack_ext", "triton"}

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m
    def exec_module(self, module):
        if module.__name__ == "torch":
            module.__version__ = "0.0.0+stub"

def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
