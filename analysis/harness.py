"""The child side of execution: loads one module and calls one function many times.

This file runs *inside* the sandbox, as ``python -B -S -s -P -c <prelude + this source>``
(analysis/sandbox/bwrap.py; ``-s -P -c`` with rlimits only under --trust-code), so it must use
the standard library only and import nothing from codebias. Not ``-I``: its ``-E`` would drop
the PYTHONHASHSEED the parent sets, and the child's environment is the parent's choice anyway. It speaks newline-delimited JSON on
private file descriptors; the code under test gets /dev/null as stdin and a capped buffer as
stdout, so it can neither read the protocol nor forge a reply by printing.

Protocol (parent -> child, one JSON object per line):
  {"op": "load", "source": str, "filename": str, "qualname": str, "instantiate": bool,
   "call_timeout": float}
  {"op": "call", "calls": [{"args": [V...], "kwargs": {name: V}, "seed": int, "mask": [V...]}]}
Replies (child -> parent, one line each):
  {"loaded": true} | {"loaded": false, "error": str}
  {"outcomes": [{"ok": true, "repr": str, "masked": str, "stdout": str, "stdout_masked": str}
                | {"ok": false, "error": str}]}
  "masked"/"stdout_masked" replace values equal to the call's `mask` values (the protected value
  being varied) by a placeholder, so a function that only echoes its input back is not biased.
A value V is JSON, or a tagged object {"__cb__": tag, ...}: "record" (fields: an object that
answers both item and attribute access), "new" (class, kwargs: instance of a class of the
module, by qualified name), "enum" (class, member), "tuple" (items), "float" (v: "inf"/"nan"),
"date" (v: ISO date).
"""

import enum
import io
import json
import os
import random
import re
import signal
import sys
import types

MAX_REPR = 2000
MAX_STDOUT = 2000
MAX_GENERATOR_ITEMS = 200
MASK = "<protected>"


class CallTimeout(BaseException):
    """Raised by the per-call alarm; a BaseException so that `except Exception` misses it."""


class Record(dict):
    """A person or object as code receives it: answers r["age"], r.get("age") and r.age."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


class Harness:
    def __init__(self, reply_fd):
        self.reply = os.fdopen(reply_fd, "w", buffering=1, encoding="utf-8")
        self.module = None
        self.target = None
        self.call_timeout = 1.0

    def send(self, obj):
        self.reply.write(json.dumps(obj, default=str) + "\n")
        self.reply.flush()

    # -- loading -------------------------------------------------------------------------
    def load(self, msg):
        self.call_timeout = float(msg.get("call_timeout", 1.0))
        module = types.ModuleType("codebias_target")
        module.__file__ = msg.get("filename", "<target>")
        sys.modules["codebias_target"] = module
        try:
            code = compile(msg["source"], module.__file__, "exec")
            if "async" in msg["source"]:
                import asyncio  # noqa: F401 - now, not inside a timed call (it takes ~100 ms)
            with self.alarm(max(self.call_timeout * 5, 5.0)):
                exec(code, module.__dict__)
            target = module
            parts = msg["qualname"].split(".")
            for i, part in enumerate(parts):
                target = getattr(target, part)
                if msg.get("instantiate") and i == len(parts) - 2 and isinstance(target, type):
                    target = target()
        except BaseException as exc:  # noqa: BLE001 - anything the module does is reported
            return {"loaded": False, "error": describe(exc)}
        self.module, self.target = module, target
        return {"loaded": True}

    # -- calling -------------------------------------------------------------------------
    def alarm(self, seconds):
        harness = self

        class Alarm:
            def __enter__(self):
                signal.signal(signal.SIGALRM, harness.on_alarm)
                signal.setitimer(signal.ITIMER_REAL, seconds)

            def __exit__(self, *exc):
                signal.setitimer(signal.ITIMER_REAL, 0)
                return False

        return Alarm()

    @staticmethod
    def on_alarm(signum, frame):
        raise CallTimeout()

    def call_one(self, call):
        seed = call.get("seed", 0)
        random.seed(seed)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            try:
                numpy.random.seed(seed)
            except Exception:  # noqa: BLE001 - a broken numpy must not end the run
                pass
        sink = io.StringIO()
        saved_stdout = sys.stdout
        sys.stdout = sink
        masks = []
        try:
            with self.alarm(self.call_timeout):
                # Building the inputs runs the module's own constructors: time them and
                # catch what they raise like any other part of the call.
                args = [self.decode(v) for v in call.get("args", [])]
                kwargs = {k: self.decode(v) for k, v in call.get("kwargs", {}).items()}
                masks = [self.decode(v) for v in call.get("mask", [])]
                result = self.target(*args, **kwargs)
                if isinstance(result, types.CoroutineType):
                    import asyncio  # imported lazily: most modules never need it

                    result = asyncio.run(result)
                if isinstance(result, types.GeneratorType):
                    result = [
                        item for _, item in zip(range(MAX_GENERATOR_ITEMS), result, strict=False)
                    ]
                text = canonical(result, [])
                masked = canonical(result, masks) if masks else text
        except CallTimeout:
            return {"ok": False, "error": f"TimeoutError: call exceeded {self.call_timeout:.1f}s"}
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are outcomes too
            return {"ok": False, "error": describe(exc)}
        finally:
            sys.stdout = saved_stdout
        printed = sink.getvalue()[:MAX_STDOUT]
        return {
            "ok": True,
            "repr": text[:MAX_REPR],
            "masked": masked[:MAX_REPR],
            "stdout": printed,
            "stdout_masked": mask_text(printed, masks),
        }

    def resolve(self, dotted):
        """A class of the module by its qualified name: "League.Rules"."""
        found = self.module
        for part in dotted.split("."):
            found = getattr(found, part)
        return found

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        tag = value.get("__cb__")
        if tag is None:
            return {k: self.decode(v) for k, v in value.items()}
        if tag == "record":
            return Record({k: self.decode(v) for k, v in value["fields"].items()})
        if tag == "tuple":
            return tuple(self.decode(v) for v in value["items"])
        if tag == "float":
            return float(value["v"])
        if tag == "date":
            import datetime

            return datetime.date.fromisoformat(value["v"])
        if tag == "enum":
            return getattr(self.resolve(value["class"]), value["member"])
        if tag == "new":
            cls = self.resolve(value["class"])
            kwargs = {k: self.decode(v) for k, v in value["kwargs"].items()}
            try:
                return cls(**kwargs)
            except Exception:  # noqa: BLE001 - fall back to filling the fields by hand
                obj = object.__new__(cls)
                for k, v in kwargs.items():
                    object.__setattr__(obj, k, v)
                return obj
        raise ValueError(f"unknown value tag {tag!r}")


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def describe(exc):
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def mask_text(text, masks):
    for m in masks:
        if isinstance(m, bool) or m is None:
            continue
        token = str(m)
        if token:
            # Masking too much is harmless (outputs also compare unmasked); too little is not.
            text = re.sub(rf"(?<![\w.]){re.escape(token)}(?![\w])", MASK, text)
    return text


def is_masked(obj, masks):
    for m in masks:
        if type(obj) is type(m) and obj == m and not isinstance(m, bool):
            return True
    return False


def canonical(obj, masks, depth=0):
    """A stable text for an output: masked protected echoes, sorted sets, no addresses."""
    if depth > 20:
        return "..."
    if is_masked(obj, masks):
        return MASK
    if isinstance(obj, str):
        return repr(mask_text(obj, masks))
    if isinstance(obj, float):
        # 2 and 2.0 are the same answer: numbers compare by value, as == does.
        rounded = round(obj, 9)
        return repr(int(rounded)) if rounded.is_integer() else repr(rounded)
    if isinstance(obj, (bool, int, type(None), complex, bytes)):
        return repr(obj)
    if isinstance(obj, enum.Enum):
        return f"{type(obj).__name__}.{obj.name}"
    if isinstance(obj, dict):
        items = sorted(
            f"{canonical(k, masks, depth + 1)}: {canonical(v, masks, depth + 1)}"
            for k, v in obj.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(obj, (list, tuple)):
        inner = ", ".join(canonical(v, masks, depth + 1) for v in obj)
        return ("[%s]" if isinstance(obj, list) else "(%s)") % inner
    if isinstance(obj, (set, frozenset)):
        return "{" + ", ".join(sorted(canonical(v, masks, depth + 1) for v in obj)) + "}"
    if hasattr(obj, "__dict__") and type(obj).__repr__ is object.__repr__:
        return f"{type(obj).__name__}({canonical(vars(obj), masks, depth + 1)})"
    try:
        text = repr(obj)
    except Exception as exc:  # noqa: BLE001
        text = f"<unrepresentable {type(obj).__name__}: {exc}>"
    return mask_text(ADDRESS.sub("", text), masks)


def main():
    # Take the protocol channels away from fds 0/1 before any untrusted code runs.
    request_fd = os.dup(0)
    reply_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdin = open(os.devnull)
    harness = Harness(reply_fd)
    requests = os.fdopen(request_fd, "r", encoding="utf-8")
    for line in requests:
        msg = json.loads(line)
        if msg["op"] == "load":
            harness.send(harness.load(msg))
        elif msg["op"] == "call":
            harness.send({"outcomes": [harness.call_one(c) for c in msg["calls"]]})
        else:
            harness.send({"error": "unknown op"})


if __name__ == "__main__":
    main()
