"""The child side of execution: loads one module and calls one function many times.

This file runs *inside* the sandbox, as ``python -B -S -s -P -c <prelude + this source>``
(analysis/sandbox/bwrap.py; ``-s -P -c`` with rlimits only under --trust-code), so it must use
the standard library only and import nothing from codebias. Not ``-I``: its ``-E`` would drop
the PYTHONHASHSEED the parent sets, and the child's environment is the parent's choice anyway.
The child script is the parts of this package joined in the order
`analysis.execution.process.HARNESS_SOURCE` lists (see analysis/execution/harness/__init__.py),
this one last.
It speaks newline-delimited JSON on private file descriptors; the code under test gets /dev/null
as stdin and a capped buffer as stdout, so it can neither read the protocol nor forge a reply by
printing. Nor by writing on the reply pipe itself (it can find it in /proc/self/fd): the first
line the parent sends, read before any code under test runs, is a key for this session, and
every reply carries a MAC under it (HMAC-SHA256 of the reply's number and its text). What the
harness relies on while it runs (the JSON reader and writer, the MAC, the canonical text of an
output, the builtins it calls) it took before the module ran, so that code under test
cannot swap it by assignment (`json.JSONEncoder.encode = ...`, `builtins.sorted = ...`);
the Guard checks the harness's own names. Code that digs the harness's objects out of the
garbage collector or the stack is beyond any check in this process (docs/security.md).

Protocol (parent -> child, one JSON object per line, after the key line):
  {"op": "load", "source": str, "filename": str, "qualname": str, "call_timeout": float,
   "load_timeout": float, "module": str | null, "package": bool, "paths": [str],
   "last_paths": [str] (searched after the standard library), "cwd": str | null,
   "stub": [str], "stub_missing": bool, "changes": [str] (parameters a function that returns
   nothing changes in place: their state after the call is its output), "prepare": [str]
   (the module's set-up functions its callers run first: run once, after loading)}
  {"op": "call", "calls": [{"args": [V...], "kwargs": {name: V}, "seed": int, "mask": [V...],
                            "parts": bool}], "call_timeout": float (from these calls on)}
Replies (child -> parent, each line "<MAC hex> <JSON>"): one to a load, one per call, in order
  {"loaded": true, "stubbed": [str], "tables": {path: [key...]}} | {"loaded": false, "error": str}
  {"ok": true, "repr": str, "masked": str, "stdout": str, "stdout_masked": str,
   "parts": [[path, repr, masked]...]} | {"ok": false, "error": str, "needs": [str]}
  (a result that reports an error, `{"error": "..."}`, is a failure: "ReturnedError: ...")
  "masked"/"stdout_masked" replace values equal to the call's `mask` values (the protected value
  being varied) by a placeholder, so a function that only echoes its input back is not biased;
  a string equal to a mask value up to case and surrounding whitespace is an echo too
  (`str(row["sex"]).strip().lower()`). With "parts", the output is also given part by part
  (tuple and list items, dict values, object attributes, to a small depth) so that the parent
  can compare the parts that re-run stably when others (a clock, a uuid) do not.
With "module", the source is executed as that module of its package (found on "paths"), so that
relative imports, siblings and the package's __init__ work as in the project's own tests.
A module that cannot be imported (or one listed in "stub") is replaced by a recording stub; a
call that touches a stub fails with "needs": the modules it needed, so it proves nothing.
A value V is JSON, or a tagged object {"__cb__": tag, ...}: "record" (fields: an object that
answers both item and attribute access), "new" (class, kwargs, optional args: instance of a
class of the module, by qualified name; optional set: attributes set once it is built;
optional bare: made without its constructor),
"enum" (class, member), "tuple" (items), "float" (v: "inf"/"nan"), "decimal" (v: a number's
text), "date" (v: ISO date), "literal" (v: a Python literal: bytes, complex, Ellipsis, a set),
"made" (function: what that function of the module returns when called without arguments),
"frame" (columns: a DataFrame), "series" (values: a Series), "anykey" (item: a dict holding
that item under every key), "called" (v: a value handed out when called), "recorded" (an
argument of a recorded call with leaves set: recorded.py). `Harness.decode_<tag>` builds each.
"""

import builtins
import importlib.util
import io
import os
import random
import signal
import sys
import time
import types
from io import StringIO
from types import AsyncGeneratorType, CoroutineType, GeneratorType

# What the harness calls while code under test runs, held by name (see the docstring).
write_fd = os.write
seed_random = random.seed
set_handler = signal.signal
set_timer = signal.setitimer
monotonic = time.monotonic
open_fd, read_fd, close_fd = os.open, os.read, os.close

if __name__ != "__main__":
    # Imported, as the tests drive the harness in-process. In the sandbox the parts arrive as
    # one script, these two first (analysis.execution.process.HARNESS_SOURCE), and nothing is
    # imported.
    from analysis.execution.harness.frames import Column, Table
    from analysis.execution.harness.getters import getter_field
    from analysis.execution.harness.held import ENVIRONMENT, json_reader, json_writer, signer
    from analysis.execution.harness.loading import (
        command_callback,
        of_project,
        refusing_dependency,
        same_source,
        site_builtins,
        table_keys,
    )
    from analysis.execution.harness.output import (  # noqa: F401 - MAX_ITEMS: the tests read it here
        MAX_ITEMS,
        MAX_REPR,
        canonical,
        clip,
        mask_text,
        output_parts,
        returned_error,
        sha256,
        stands_alone,
    )
    from analysis.execution.harness.recorded import RECORDED  # evidence: recorded calls replayed
    from analysis.execution.harness.recorder import record  # evidence: the recording run
    from analysis.execution.harness.stubs import STUBS, adopt_missing, needs_outcome

MAX_STDOUT = 2000
MAX_ERROR = 2000
# The keyword the answers to a function's own `input()` prompts come under: typed at them,
# one line each, then the end of input (analysis/inputs/answers.py).
ANSWERS = "<stdin>"
# The keyword the words of a function's command line come under, a record of option ->
# value written into sys.argv (command_words; analysis/inputs/command_line.py), and the
# key of the sub-command chosen in it.
COMMAND_LINE = "<argv>"
COMMAND = "<command>"
# The keywords the parts of a web request a view reads come under, records of the keys read
# (analysis/inputs/web_request.py), sent as a test request while it runs (`web_request`).
REQUEST_PARTS = {"json": "<request.json>", "form": "<request.form>", "args": "<request.args>"}
# Reads of the closed stdin at its end, after which one raises EOFError: a program that
# reads it in a loop (a server's message loop, `while True: sys.stdin.readline()`) waits
# for input that never comes, and would spin until its time is up.
MAX_EMPTY_READS = 1000
MAX_GENERATOR_ITEMS = 200


INPUT_ERROR = "InputError"  # what a call raised while its arguments were being built


class CallTimeout(BaseException):
    """Raised by the per-call alarm; a BaseException so that `except Exception` misses it."""


# A call's time runs behind the wall clock by the time its thread waited for a processor
# (execution/waiting.py, the session's clock): on a machine busy with other work, a call
# keeps the time it could run. Stretched at most this many times its limit, as the session.
MAX_STRETCH = 2.0


def thread_wait():
    """Seconds the calling thread waited on a run queue so far (the kernel's schedstat:
    `<on cpu> <waiting> <slices>`, in nanoseconds); 0.0 where it is not counted."""
    try:
        fd = open_fd("/proc/thread-self/schedstat", os.O_RDONLY)
        try:
            fields = read_fd(fd, 128).split()
        finally:
            close_fd(fd)
    except OSError:
        return 0.0
    return int(fields[1]) / 1e9 if len(fields) >= 2 and fields[1].isdigit() else 0.0


class Record(dict):
    """A person or object as code receives it: answers r["age"], r.get("age"), r.age, a
    getter's r.get_age() and, as an accessor, r("age", period); a call that names no field
    gives the record itself."""

    def __call__(self, *args, **kwargs):
        if args and isinstance(args[0], str) and args[0] in self:
            return self[args[0]]
        return self

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            if name in GROUP_AGGREGATES:
                return GROUP_AGGREGATES[name]
            field = getter_field(name)
            if field is not None and field in self:
                return lambda: self[field]  # `person.get_age()` (harness/getters.py)
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


class AnyKeyTable(dict):
    """A table the code reads by a key its person's input gives (`rates[state]`, a
    `dict[str, Params]` of provinces): every key holds the same item, built on first read, so
    that the key alone changes nothing but the code's own treatment of it."""

    def __init__(self, build):
        super().__init__()
        self._build = build

    def __missing__(self, key):
        value = self[key] = self._build()
        return value

    def get(self, key, default=None):
        return self[key]

    def __contains__(self, key):
        return True


def _reduce(function):
    def reduce(values, *args, **kwargs):
        try:
            items = list(values)
        except TypeError:
            items = [values]  # one member's value
        return function(items)

    return reduce


# A group of people (a household, a family, a team) as the record of its one member tried:
# what group APIs ask of the members (`household.any(ages < 8)`, `household.sum(salary)`,
# `household.nb_persons(role)`) is answered over that one member, unless a field says else.
GROUP_AGGREGATES = {
    "any": _reduce(lambda items: any(bool(v) for v in items)),
    "all": _reduce(lambda items: all(bool(v) for v in items)),
    "sum": _reduce(sum),
    "min": _reduce(min),
    "max": _reduce(max),
    "nb_persons": lambda *args, **kwargs: 1,
}


class Guard:
    """The harness's own names, by identity, taken before any code under test runs.

    Module-level code, a class body or a default argument of the file under test runs in this
    process and could replace a function of the harness (`import __main__;
    __main__.canonical = ...`) or one of the builtins it calls (reachable as
    `canonical.__builtins__`) to make a biased function look clean. Whatever changed is
    named, and the engine judges every function of that module statically ("tampers with the
    test harness"), never clean. What the harness takes from other modules it holds by name
    (the module docstring), so a module is free to change theirs (`re._MAXCACHE = 1000`).
    """

    def __init__(self, namespace):
        classes = {
            name: vars(value)
            for name, value in namespace.items()
            if isinstance(value, type) and value.__module__ == namespace.get("__name__")
        }
        own = namespace.get("__builtins__")  # the harness's own copy (execution.py)
        self.sources = {
            "harness": namespace,
            "builtins": own if isinstance(own, dict) else {},
            **classes,
        }
        self.taken = {
            (where, name): id(value)
            for where, table in self.sources.items()
            for name, value in list(table.items())
        }
        self.broken = None

    def check(self):
        """None while intact; else what was changed (and from then on, always that)."""
        if self.broken is None:
            for (where, name), ident in self.taken.items():
                table = self.sources[where]
                if name not in table or id(table[name]) != ident:
                    self.broken = (
                        f"TamperError: the module tampers with the test harness ({where}.{name})"
                    )
                    break
        return self.broken


class Harness:
    def __init__(self, reply_fd, guard=None, key=bytes(32)):
        self.reply_fd = reply_fd
        self.guard = guard  # taken before any code under test runs (main)
        self.encode = json_writer()
        self.sign = signer(key)
        self.sent = 0  # replies so far: each one's MAC covers its number
        self.module = None
        self.target = None
        self.call_timeout = 1.0
        self.alarm_span = (0.0, 0.0, 0.0)  # the running alarm's start, seconds and wait then
        self.plain_instances = {}  # by class: objects whose constructor takes no argument
        self.made = {}  # by function name: what a module's maker returned
        self.found_classes = {}  # by name: classes found in the package's other modules
        self.changes = ()  # the parameters whose state is the output when it returns None
        self.signature = None

    def send(self, obj):
        body = self.encode(obj).encode("ascii")
        mac = self.sign(b"%d " % self.sent + body)
        self.sent += 1
        data = memoryview(mac.encode("ascii") + b" " + body + b"\n")
        while data:
            data = data[write_fd(self.reply_fd, data) :]

    # -- loading -------------------------------------------------------------------------
    def load(self, msg):
        # The load message's steps in the order they must run, the stub retry loop inside.
        self.call_timeout = float(msg.get("call_timeout", 1.0))
        sys.path[:0] = [p for p in msg.get("paths", []) if isinstance(p, str)]
        sys.path += [p for p in msg.get("last_paths", []) if isinstance(p, str)]
        if msg.get("cwd"):
            os.chdir(msg["cwd"])
        environ = msg.get("environ")
        for name, value in environ.items() if isinstance(environ, dict) else ():
            if isinstance(name, str) and isinstance(value, str):
                os.environ[name] = value  # evidence: as the project's recorded run had it
        STUBS.forced.update(msg.get("stub", []))
        STUBS.allow = bool(msg.get("stub_missing", True))
        sys.meta_path.insert(0, STUBS)
        RECORDED.configure(msg.get("evidence"), msg.get("cwd"))  # evidence: recorded calls
        if not msg["qualname"]:
            # evidence: the recording run sets the project up and loads no function
            return {"loaded": True, "stubbed": sorted(STUBS.forced)}
        if "async" in msg["source"]:
            import asyncio  # noqa: F401 - now, not inside a timed call (it takes ~100 ms)
        baseline = set(sys.modules)
        roots = [p for p in msg.get("paths", []) if isinstance(p, str)]
        while True:
            try:
                with self.alarm(float(msg.get("load_timeout", 10.0))):
                    module = self.execute(msg)
                    target = module
                    outer, _, closure = msg["qualname"].partition(".<locals>.")
                    for part in outer.split("."):
                        target = getattr(target, part)
                    if closure:  # what the factory, called with its defaults, returns
                        target = target()
                        if getattr(target, "__name__", None) != closure:
                            raise LookupError(f"{outer}() returned no function {closure}")
                    target = command_callback(target, msg["qualname"])
                break
            except ModuleNotFoundError as exc:
                if not adopt_missing(exc):
                    return {"loaded": False, "error": describe(exc)}
                # Forget what the failed attempt imported of the project, then try again with
                # the stub. Other modules loaded whole and stay: numpy's C core cannot load
                # twice in one process.
                for name in set(sys.modules) - baseline:
                    if of_project(sys.modules[name], roots):
                        del sys.modules[name]
            except BaseException as exc:  # noqa: BLE001 - anything the module does is reported
                variable = ENVIRONMENT.needed_by(exc)
                if variable is not None:
                    error = f"needs the environment variable {variable} (the sandbox's is empty)"
                    return {"loaded": False, "error": error}
                # A framework that refuses to be imported before its app is set up (NoneBot's
                # "has not been initialized"): stubbed, as if it were not installed.
                refusing = refusing_dependency(exc, roots)
                if refusing is None or not STUBS.adopt(refusing):
                    return {"loaded": False, "error": describe(exc)}
                for name in set(sys.modules) - baseline:
                    if of_project(sys.modules[name], roots) or STUBS.covers(name):
                        del sys.modules[name]
        self.module, self.target = module, target
        self.changes = tuple(c for c in msg.get("changes", []) if isinstance(c, str))
        if self.changes:
            import inspect  # imported lazily: only procedures need it

            try:
                self.signature = inspect.signature(target)
            except (TypeError, ValueError):
                self.changes = ()
        for name in msg.get("prepare", []):  # what the module's callers run first
            try:
                with self.alarm(float(msg.get("load_timeout", 10.0))):
                    getattr(module, name)()
            except BaseException:  # noqa: BLE001 - its calls show what is still missing
                pass
        try:  # evidence: recorded calls load now, their imports outside any call's alarm
            with self.alarm(float(msg.get("load_timeout", 10.0))):
                RECORDED.preload(msg.get("recorded", []))
        except BaseException:  # noqa: BLE001 - a call that cannot load fails when it is made
            pass
        tables = {}
        try:  # the keys of tables the module built as it loaded, read outside any call
            with self.alarm(float(msg.get("load_timeout", 10.0))):
                tables = table_keys(module, msg.get("tables", []))
        except BaseException:  # noqa: BLE001 - the search goes on with the code's own values
            pass
        broken = self.guard.check() if self.guard else None
        if broken:
            return {"loaded": False, "error": broken}
        return {"loaded": True, "stubbed": sorted(STUBS.forced | STUBS.missing), "tables": tables}

    def execute(self, msg):
        """Run the source as its module: in its package when it has a dotted name."""
        name = msg.get("module") or "codebias_target"
        filename = msg.get("filename", "<target>")
        if msg.get("module"):
            parent = name.rpartition(".")[0]
            if parent:
                importlib.import_module(parent)  # the package's __init__ runs, as on import
            loaded = sys.modules.get(name)
            if loaded is not None and same_source(loaded, filename, msg["source"]):
                # The package imported it already, from this very text: running it again would
                # redo its side effects (networkx registers each algorithm once).
                return loaded
            spec = importlib.util.spec_from_loader(
                name, loader=None, origin=filename, is_package=bool(msg.get("package"))
            )
            module = importlib.util.module_from_spec(spec)
            if msg.get("package"):
                module.__path__ = [os.path.dirname(filename)]
        else:
            module = types.ModuleType(name)
        module.__file__ = filename
        # The module's builtins are everybody's, not the harness's own copy (execution.py).
        module.__dict__.setdefault("__builtins__", builtins)
        sys.modules[name] = module
        exec(compile(msg["source"], filename, "exec"), module.__dict__)
        return module

    # -- calling -------------------------------------------------------------------------
    def alarm(self, seconds):
        harness = self

        class Alarm:
            def __enter__(self):
                harness.alarm_span = (monotonic(), seconds, thread_wait())
                set_handler(signal.SIGALRM, harness.on_alarm)
                set_timer(signal.ITIMER_REAL, seconds)

            def __exit__(self, *exc):
                set_timer(signal.ITIMER_REAL, 0)
                return False

        return Alarm()

    def on_alarm(self, signum, frame):
        # Due by the wall clock: set again for the time the call waited for a processor.
        started, seconds, wait_before = self.alarm_span
        elapsed = monotonic() - started
        ran = elapsed - (thread_wait() - wait_before)
        left = min(seconds - ran, seconds * MAX_STRETCH - elapsed)
        if left > 0.001:
            set_timer(signal.ITIMER_REAL, left)
            return
        raise CallTimeout()

    def call_one(self, call):
        outcome = self.attempt(call)
        if outcome.get("missing") and STUBS.adopt(outcome.pop("missing")):
            outcome = self.attempt(call)  # imported inside the function: again, with its stub
        outcome.pop("missing", None)
        broken = self.guard.check() if self.guard else None
        return {"ok": False, "error": broken} if broken else outcome

    def attempt(self, call):
        # One call, seeding to restoring stdout: state set and undone in one frame.
        seed = call.get("seed", 0)
        seed_random(seed)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            try:
                numpy.random.seed(seed)
            except Exception:  # noqa: BLE001 - a broken numpy must not end the run
                pass
        sink = StringIO()
        saved_stdout, saved_stdin, saved_argv = sys.stdout, sys.stdin, sys.argv
        sys.stdout = sink
        masks = []
        STUBS.touched.clear()
        RECORDED.begin_call()  # evidence: each call starts from fresh recorded values
        building = True
        try:
            with self.alarm(self.call_timeout):
                # Building the inputs runs the module's own constructors: time them and
                # catch what they raise like any other part of the call.
                args = [self.decode(v) for v in call.get("args", [])]
                kwargs = {k: self.decode(v) for k, v in call.get("kwargs", {}).items()}
                masks = [self.decode(v) for v in call.get("mask", [])]
                answers = kwargs.pop(ANSWERS, None)
                if answers is not None:
                    sys.stdin = StringIO("".join(f"{answer}\n" for answer in answers))
                words = kwargs.pop(COMMAND_LINE, None)
                if isinstance(words, dict):
                    sys.argv = [saved_argv[0] if saved_argv else "prog", *command_words(words)]
                parts = {p: kwargs.pop(k) for p, k in REQUEST_PARTS.items() if k in kwargs}
                building = False
                if parts:
                    with web_request(self.module, parts):
                        result = answered(self.target(*args, **kwargs))
                else:
                    result = self.target(*args, **kwargs)
                printing = result is None  # what it printed is its output too
                if printing and self.changes:
                    result = self.changed(args, kwargs)
                if isinstance(result, CoroutineType):
                    import asyncio  # imported lazily: most modules never need it

                    result = asyncio.run(result)
                if isinstance(result, AsyncGeneratorType):
                    import asyncio

                    result = asyncio.run(collect(result))
                if isinstance(result, GeneratorType):
                    result = [
                        item for _, item in zip(range(MAX_GENERATOR_ITEMS), result, strict=False)
                    ]
                text = canonical(result, [])
                masked = canonical(result, masks) if masks else text
                pieces = output_parts(result, masks) if call.get("parts") else []
        except CallTimeout:
            return {"ok": False, "error": f"TimeoutError: call exceeded {self.call_timeout:.1f}s"}
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are outcomes too
            if STUBS.touched:
                return needs_outcome()
            missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
            error = describe(exc)
            if building:
                # A constructor refused the inputs before the function ran: that refusal is
                # the constructor's (reviewed as a function of its own), not this function's.
                error = f"{INPUT_ERROR}: building the inputs raised {error}"
            return {"ok": False, "error": error, "missing": missing}
        finally:
            sys.stdout = saved_stdout
            sys.stdin = saved_stdin
            sys.argv = saved_argv
        if STUBS.touched:
            return needs_outcome()
        reported = returned_error(result)
        if reported is not None:
            return {"ok": False, "error": f"ReturnedError: {reported[:MAX_REPR]}"}
        printed = sink.getvalue()[:MAX_STDOUT]
        return {
            "ok": True,
            "repr": clip(text),
            "masked": clip(masked),
            "stdout": printed,
            "stdout_masked": mask_text(printed, masks),
            "parts": pieces,
            "printing": printing,
        }

    def changed(self, args, kwargs):
        """What a function that returns nothing leaves on the inputs it changes in place
        (`changes`, found in its source by the parent): the object a method sets, the
        record it fills in; one, or a tuple of them."""
        try:
            given = self.signature.bind_partial(*args, **kwargs).arguments
        except (TypeError, ValueError):  # a wrapped callable of another signature
            return None
        changed = [given[name] for name in self.changes if name in given]
        if not changed:
            return None
        return changed[0] if len(changed) == 1 else tuple(changed)

    def resolve(self, dotted):
        """A class of the module by its qualified name: "League.Rules". A class the module
        does not name itself (`Sex`, the type of a field of an imported `UserProfile`) is
        looked for in the modules of its package that are loaded."""
        head, *rest = dotted.split(".")
        found = getattr(self.module, head, None)
        if not isinstance(found, type):
            found = self.loaded_class(head) or found
        if found is None:
            raise AttributeError(f"no class {head!r} in {self.module.__name__}")
        for part in rest:
            found = getattr(found, part)
        return found

    def loaded_class(self, name):
        # Every call decodes its arguments again: look through the modules once per name.
        if name not in self.found_classes:
            package = (getattr(self.module, "__name__", "") or "").split(".")[0]
            self.found_classes[name] = next(
                (
                    value
                    for module_name, module in list(sys.modules.items())
                    if module_name == package or module_name.startswith(package + ".")
                    for value in [getattr(module, name, None)]
                    if isinstance(value, type)
                ),
                None,
            )
        return self.found_classes[name]

    def decode(self, value):
        # A tagged value is built by the method named for its tag (`decode_record` for
        # {"__cb__": "record", ...}), as ast.NodeVisitor visits: each tag of the protocol is
        # one small method beside the shape that encodes it (analysis/shapes.py).
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        tag = value.get("__cb__")
        if tag is None:
            return {k: self.decode(v) for k, v in value.items()}
        decoder = getattr(self, f"decode_{tag}", None) if isinstance(tag, str) else None
        if decoder is None:
            raise ValueError(f"unknown value tag {tag!r}")
        return decoder(value)

    def decode_recorded(self, value):  # evidence: an argument of a recorded call, a leaf set
        return RECORDED.value(value, self.decode)

    def decode_json(self, value):
        import json  # imported lazily: most calls never need it

        fields = {k: self.decode(v) for k, v in value["fields"].items()}
        return json.dumps(fields, default=str)

    def decode_record(self, value):
        return Record({k: self.decode(v) for k, v in value["fields"].items()})

    def decode_frame(self, value):
        columns = {k: [self.decode(v) for v in vs] for k, vs in value["columns"].items()}
        if STUBS.covers("pandas"):  # stubbed: the table below, not a stub that proves nothing
            return Table(columns)
        try:
            import pandas
        except ImportError:  # no pandas here: a table that answers its common idioms
            return Table(columns)
        return pandas.DataFrame(columns)

    def decode_series(self, value):
        values = [self.decode(v) for v in value["values"]]
        if STUBS.covers("pandas"):
            return Column(values)
        try:
            import pandas
        except ImportError:
            return Column(values)
        return pandas.Series(values)

    def decode_called(self, value):
        held = self.decode(value["v"])
        return lambda *args, **kwargs: held  # `person.age()`: the value, when called

    def decode_anykey(self, value):
        item = value["item"]
        return AnyKeyTable(lambda: self.decode(item))

    def decode_tuple(self, value):
        return tuple(self.decode(v) for v in value["items"])

    def decode_float(self, value):
        return float(value["v"])

    def decode_decimal(self, value):
        import decimal

        return decimal.Decimal(value["v"])

    def decode_date(self, value):
        import datetime

        return datetime.date.fromisoformat(value["v"])

    def decode_literal(self, value):
        import ast

        return ast.literal_eval(value["v"])

    def decode_enum(self, value):
        return getattr(self.resolve(value["class"]), value["member"])

    def decode_made(self, value):  # tables a module loads: made once per session, as it does
        name = value["function"]
        if name not in self.made:
            self.made[name] = getattr(self.module, name)()
        return self.made[name]

    def decode_new(self, value):
        cls = concrete(self.resolve(value["class"]))
        args = [self.decode(v) for v in value.get("args", [])]
        kwargs = {k: self.decode(v) for k, v in value["kwargs"].items()}
        # Built from nothing, every instance of a class is the same: one per session (a
        # calculator that reads its coefficient workbook in its constructor), unless the
        # constructor is what is tested (each call must start from a fresh object).
        state = value.get("set") or {}
        tested = getattr(self.target, "__name__", "")
        shared = not (args or kwargs or state) and tested != "__init__"
        if shared and value["class"] in self.plain_instances:
            return self.plain_instances[value["class"]]
        try:
            if value.get("bare"):  # its state by hand: the constructor reads files, parses...
                raise TypeError(value["class"])
            obj = cls(*args, **kwargs)
        except TypeError:  # its constructor wants other arguments: fill the fields by hand
            obj = object.__new__(cls)
            for k, v in kwargs.items():
                object.__setattr__(obj, k, v)
        except Exception:
            aliased = by_alias(cls, kwargs)
            if aliased is None:
                raise
            obj = cls(*args, **aliased)
        for k, v in state.items():  # what another method of the class would have set
            try:
                setattr(obj, k, self.decode(v))
            except Exception:  # noqa: BLE001 - a property without a setter, slots: as it is
                try:
                    object.__setattr__(obj, k, self.decode(v))
                except Exception:  # noqa: BLE001
                    pass
        if shared:
            self.plain_instances[value["class"]] = obj
        return obj


STAND_INS = {}  # abstract class -> its stand-in: made once, whatever the calls


def concrete(cls):
    """`cls`, or for an abstract class (its methods under test, its subclasses elsewhere) a
    subclass of the same name whose abstract methods stay as written, so it can be made."""
    if not getattr(cls, "__abstractmethods__", None):
        return cls
    if cls not in STAND_INS:
        made = type(cls)(cls.__name__, (cls,), {"__module__": cls.__module__})
        made.__abstractmethods__ = frozenset()
        made.__qualname__ = cls.__qualname__
        STAND_INS[cls] = made
    return STAND_INS[cls]


def by_alias(cls, kwargs):
    """A pydantic model's fields keyed by their aliases (`Field(alias="employeeAge")`), which
    is all its constructor takes unless it populates by name; None when none has one."""
    fields = getattr(cls, "model_fields", None) or getattr(cls, "__fields__", None) or {}
    aliases = {k: getattr(fields[k], "alias", None) for k in kwargs if k in fields}
    if not any(a and a != k for k, a in aliases.items()):
        return None
    return {aliases.get(k) or k: v for k, v in kwargs.items()}


def web_request(module, parts):
    """A test request of the module's own Flask app (a new one if it has none), carrying
    the JSON body, form and query string a view reads from the global `request`."""
    import flask  # imported lazily: only views need it

    app = next((v for v in vars(module).values() if isinstance(v, flask.Flask)), None)
    app = app or flask.Flask("codebias")

    def texts(record):
        items = record.items() if isinstance(record, dict) else ()
        return {str(k): str(v) for k, v in items if v is not None}

    given = {"query_string": texts(parts.get("args"))}
    if "json" in parts:
        given["json"] = parts["json"]
    elif "form" in parts:
        given["data"] = texts(parts["form"])
    return app.test_request_context("/", method="POST", **given)


def answered(result):
    """A view's response as what it says: its status and its body's text (a Response's own
    text shows only its length)."""
    if isinstance(result, tuple):
        return tuple(answered(item) for item in result)
    if hasattr(result, "get_data") and hasattr(result, "status_code"):
        return {"status": result.status_code, "body": result.get_data(as_text=True)}
    return result


async def collect(agen):
    """The items of an async generator, at most MAX_GENERATOR_ITEMS."""
    items = []
    async for item in agen:
        items.append(item)
        if len(items) >= MAX_GENERATOR_ITEMS:
            break
    return items


class ClosedStdin(io.TextIOWrapper):
    """The child's stdin, /dev/null: empty, as before, but past MAX_EMPTY_READS reads at its
    end a read raises EOFError, as `input()` does at once."""

    empty_reads = 0

    def read(self, size=-1):
        return self.counted(super().read(size))

    def readline(self, size=-1):
        return self.counted(super().readline(size))

    def rewind(self):
        self.empty_reads = 0

    def counted(self, got):
        if not got:
            self.empty_reads += 1
            if self.empty_reads > MAX_EMPTY_READS:
                raise EOFError("stdin is closed: read at its end in a loop")
        return got


def command_words(given):
    """The words of `sys.argv` after the program's name, from a record of option -> value:
    "--age": 70 gives `--age 70`, a flag `True` gives the flag alone and `False` or None
    nothing; a key without dashes is a positional word; "heart --age" an option of the
    sub-command "heart", written after its name when that is the one chosen (COMMAND)."""
    command = given.get(COMMAND)
    head, tail = [], []
    for key, value in given.items():
        scope, _, word = str(key).rpartition(" ")
        if key == COMMAND or (scope and scope != command) or value is None:
            continue
        into = tail if scope else head
        if word.startswith("-"):
            if value is False:
                continue
            into.append(word)
            if value is True:
                continue
        into.append(str(value))
    return [*head, *([str(command)] if command is not None else []), *tail]


def describe(exc):
    # Long enough for the columns a table's reader lists as missing (missing_fields.py).
    return f"{type(exc).__name__}: {str(exc)[:MAX_ERROR]}"


def main():
    # Take the protocol channels away from fds 0/1 before any untrusted code runs.
    request_fd = os.dup(0)
    reply_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdin = ClosedStdin(open(os.devnull, "rb"))
    site_builtins()
    ENVIRONMENT.watch()
    requests = os.fdopen(request_fd, "r", encoding="utf-8")
    # The session's key comes first; it stays only in the MAC's hash states.
    harness = Harness(reply_fd, Guard(globals()), bytes.fromhex(requests.readline()))
    read = json_reader()
    for line in requests:
        msg = read(line)
        if msg["op"] == "load":
            harness.send(harness.load(msg))
        elif msg["op"] == "call":
            harness.call_timeout = float(msg.get("call_timeout", harness.call_timeout))
            for call in msg["calls"]:
                harness.send(harness.call_one(call))
        elif msg["op"] == "record":  # evidence: run the project's tests and demos, recording
            record(harness, msg)
        else:
            harness.send({"error": "unknown op"})


if __name__ == "__main__":
    main()
