"""Recording stubs for modules that cannot be imported: attribute access, calls,
subclassing, iteration and decorators work, and every touch is recorded, so that a call that
used one proves nothing ("needs <module>").

Part of the child script (see harness/runner.py): it runs inside the sandbox, joined into one script
with the other parts by `analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import importlib.util
import types

MAX_STUBBED = 25  # modules stubbed while loading one target, at most


# -- stubs for modules that cannot be imported ------------------------------------------------


class Stubs:
    """A meta path finder that answers for stubbed modules (and their submodules) only.

    A module is stubbed when the policy says so (`forced`) or when importing it failed while
    loading the target (`missing`): optional imports inside `try/except ImportError` never
    fail the load, so they keep their real fallback. `touched` collects the modules whose
    stubs the current call used.
    """

    def __init__(self):
        self.forced = set()
        self.missing = set()
        self.allow = True
        self.touched = set()

    def covers(self, fullname):
        stubbed = self.forced | self.missing
        return any(fullname == n or fullname.startswith(n + ".") for n in stubbed)

    def adopt(self, name, needed=False):
        """Stub `name` from now on; False when that is not allowed or would not help.
        `needed`: a test file cannot be imported without it (the recording run stubs
        nothing else: harness/testplugin.py)."""
        allowed = self.allow or needed
        if not allowed or not name or self.covers(name) or len(self.missing) >= MAX_STUBBED:
            return False
        self.missing.add(name)
        return True

    def find_spec(self, fullname, path=None, target=None):
        if not self.covers(fullname):
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass

    def touch(self, name):
        stubbed = self.forced | self.missing
        owner = next((n for n in stubbed if name == n or name.startswith(n + ".")), None)
        self.touched.add(owner or name.split(".")[0])


STUBS = Stubs()


class Uninstalled:
    """Distributions the code asks `importlib.metadata.version` for that are not installed
    here. A project run from its source, not installed (the App's sandbox, a run without its
    dependencies), asks for its own version at import (`__version__ = version("pkg")`),
    which only an installed copy answers: those names read "0.0.0" from then on; every other
    name is answered as installed."""

    def __init__(self):
        self.names = set()

    def adopt(self, name):
        """Answer for distribution `name` from now on; False when it is answered already."""
        if not name or name in self.names:
            return False
        if not self.names:
            self.answer()
        self.names.add(name)
        return True

    def answer(self):
        import importlib.metadata as metadata

        installed, names = metadata.version, self.names

        def version(distribution_name):
            try:
                return installed(distribution_name)
            except metadata.PackageNotFoundError:
                if distribution_name in names:
                    return "0.0.0"
                raise

        metadata.version = version


UNINSTALLED = Uninstalled()


def adopt_missing(exc):
    """Answer for what a failed import of the target missed: a distribution's metadata
    (`Uninstalled`), else the module, stubbed. False when neither would help."""
    if type(exc).__name__ == "PackageNotFoundError":  # a ModuleNotFoundError, named apart
        return UNINSTALLED.adopt(exc.name)
    return STUBS.adopt(exc.name)


def needs_outcome():
    modules = sorted(STUBS.touched)
    return {"ok": False, "error": f"needs {', '.join(modules)} (stubbed here)", "needs": modules}


class StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        # A call that reads `six.string_types` uses the stub even if all it does with it
        # is `isinstance(x, ...)`, which then raises TypeError: that call needs the module.
        STUBS.touch(self.__name__)
        return Stub(f"{self.__name__}.{attr}")


def _touching(result):
    def method(self, *args, **kwargs):
        STUBS.touch(object.__getattribute__(self, "_cb_name"))
        return result(self, *args, **kwargs)

    return method


def _derived(self, *args, **kwargs):
    return Stub(object.__getattribute__(self, "_cb_name") + "()")


class Stub:
    """Anything taken from a stubbed module: it answers every use, and records each one."""

    __slots__ = ("_cb_name",)

    def __init__(self, name):
        object.__setattr__(self, "_cb_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        STUBS.touch(self._cb_name)
        return Stub(f"{self._cb_name}.{attr}")

    def __call__(self, *args, **kwargs):
        STUBS.touch(self._cb_name)
        if len(args) == 1 and not kwargs and isinstance(args[0], (types.FunctionType, type)):
            return args[0]  # used as a decorator: keep what it decorates
        return Stub(self._cb_name + "()")

    def __mro_entries__(self, bases):
        # `class Model(vendor.Base)`: a real base that stands in for the stubbed one.
        return (type("StubBase", (StubBase,), {"_cb_name": self._cb_name}),)

    __setattr__ = _touching(lambda self, *a: None)
    __iter__ = _touching(lambda self: iter(()))
    __len__ = _touching(lambda self: 0)
    __bool__ = _touching(lambda self: True)
    __contains__ = _touching(lambda self, item: False)
    __getitem__ = _touching(_derived)
    __setitem__ = _touching(lambda self, *a: None)
    __enter__ = _touching(lambda self: self)
    __exit__ = _touching(lambda self, *a: False)
    __eq__ = _touching(lambda self, other: self is other)
    __ne__ = _touching(lambda self, other: self is not other)
    __lt__ = __le__ = __gt__ = __ge__ = _touching(lambda self, other: False)
    __hash__ = _touching(lambda self: id(self))
    __int__ = __index__ = _touching(lambda self: 0)
    __float__ = _touching(lambda self: 0.0)
    __str__ = __repr__ = _touching(lambda self: f"<stub {self._cb_name}>")
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _touching(_derived)
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _touching(_derived)
    __and__ = __or__ = __xor__ = __rand__ = __ror__ = _touching(_derived)


class StubBase:
    """The base a class gets when it derives from something stubbed (`_cb_name`)."""

    _cb_name = "stub"

    def __init__(self, *args, **kwargs):
        STUBS.touch(self._cb_name)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        STUBS.touch(self._cb_name)
        return Stub(f"{self._cb_name}.{attr}")
