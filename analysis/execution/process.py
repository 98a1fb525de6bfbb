"""The process boundary: code under test runs in a child process, never in ours.

One `Session` per function: the child loads the module once, then answers batches of calls
through the harness protocol (see harness/runner.py). An `Executor` decides how the child is
started; `ProcessExecutor` here applies rlimits only (for code the user owns), and
`analysis.sandbox.BwrapExecutor` adds namespaces, a separate uid and a read-only system.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import hmac
import json
import os
import posixpath
import resource
import secrets
import selectors
import signal
import subprocess
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import CallsProveNothing, LoadDied, ReplyForged, SessionDied
from analysis.execution.harness.loading import MAX_TABLE_KEYS, json_scalar
from analysis.execution.interpreter import Interpreter, current_interpreter
from analysis.execution.waiting import MAX_STRETCH, WaitClock
from analysis.values import EnumMember

# The child script: its parts joined in order, each standard library only (see harness/runner.py).
# First of all the harness takes a copy of the builtins for itself: every function and class
# it defines looks names up there, so code under test that replaces a builtin
# (`builtins.sorted = ...`) changes its own world, not the harness's.
HARNESS_SOURCE = "__builtins__ = dict(vars(__import__('builtins')))\n\n" + "\n\n".join(
    (Path(__file__).parent / part).read_text(encoding="utf-8")
    for part in (
        "harness/output.py",
        "harness/stubs.py",
        "harness/frames.py",
        "harness/getters.py",  # a record's getters (`person.get_age()`)
        "harness/openfisca.py",  # evidence: OpenFisca objects in recorded calls
        "harness/callcopy.py",  # evidence: a recorded call's arguments, pickled
        "harness/describe.py",  # evidence: what a recorded argument holds
        "harness/clock.py",  # evidence: the recording run's time
        "harness/datarows.py",  # evidence: a data file's rows, shaped for a function
        "harness/namedfiles.py",  # evidence: a data file an argument names, kept in the call
        "harness/testplugin.py",  # evidence: the recording run's tests
        "harness/instrument.py",  # evidence: targets that report their own calls (3.11)
        "harness/recorder.py",  # evidence: the recording run
        "harness/recorded.py",  # evidence: recorded calls replayed
        "harness/held.py",
        "harness/loading.py",
        "harness/runner.py",
    )
)


def packed_script(source: str) -> str:
    """`python -c` text that runs `source`. Linux caps one argument at 128 KiB
    (MAX_ARG_STRLEN, "Argument list too long"), which the harness nears on its own: it crosses
    without its docstrings and comments, compressed, and is unpacked and run as the script it
    is, in `__main__`'s namespace."""
    code = without_docstrings(source)
    packed = base64.b85encode(zlib.compress(code.encode("utf-8"), 9)).decode("ascii")
    return (
        "exec(compile(__import__('zlib').decompress(__import__('base64').b85decode("
        f"{packed!r})), '<codebias harness>', 'exec'))\n"
    )


def without_docstrings(source: str) -> str:
    """`source` as the parser reads it (no comments), its docstrings (every statement that is
    a bare text) dropped: what it runs."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and any(map(bare_text, body)):
            node.body = [s for s in body if not bare_text(s)] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.unparse(tree)


def bare_text(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and (isinstance(statement.value.value, str))
    )


HARNESS_SCRIPT = packed_script(HARNESS_SOURCE)


# Numeric libraries (OpenMP, OpenBLAS, MKL) start a thread per core, and glibc a malloc arena
# per thread: address space that a child under RLIMIT_AS and RLIMIT_NPROC, beside others on
# the same cores, runs out of ("can't start new thread", std::bad_alloc: every call of an
# sklearn pipeline raised). One thread each also sums in one order: the same output per run.
SINGLE_THREADED = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",
}


TIMEOUT_ERROR = "TimeoutError: call exceeded"  # the harness's outcome of a call past its time
SLOW_CALL_TIMEOUT = 4  # times the call timeout, for a function whose first call needs more


@dataclass(frozen=True)
class Limits:
    call_timeout: float = 1.0  # per call, enforced by an alarm inside the harness
    load_timeout: float = 15.0  # importing the module and its package, once per session
    session_timeout: float = 20.0  # wall clock for the whole child, enforced from here
    # RLIMIT_AS: room for a package's tables read in at import (cvd-risk's 5 MB pickle
    # unpacks to 0.97 GB beside pandas).
    memory_mb: int = 2048
    cpu_seconds: int = 20  # RLIMIT_CPU
    processes: int = 64  # RLIMIT_NPROC (per uid: meaningful only with a uid of its own)
    file_size_mb: int = 16  # RLIMIT_FSIZE
    open_files: int = 64  # RLIMIT_NOFILE
    max_reply_bytes: int = 4 << 20  # the child's answers are untrusted: cap them
    stubbed_calls: int = 32  # calls that all touched a stubbed module, and the session stops


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the function under test, its values already encoded for the harness."""

    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    # Values whose echoes in the output are masked: the protected value being varied.
    mask: tuple[Any, ...] = ()
    # Ask for the output part by part too (Outcome.parts): for outputs some parts of which
    # do not re-run stably.
    parts: bool = False

    def wire(self) -> dict[str, Any]:
        return {
            "args": list(self.args),
            "kwargs": dict(self.kwargs),
            "seed": self.seed,
            "mask": list(self.mask),
            "parts": self.parts,
        }


# What a function returns whose output is what it prints (Outcome.same).
PRINTING_RESULTS = frozenset({"None", "0"})


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one call did, as far as the (untrusted) child says: a result or an error.

    `value` is the canonical text of the result, `masked` the same with the protected value's
    echoes masked; `stdout`/`stdout_masked` what it printed. `error` is set when it raised.
    `parts`, when the call asked for them, are (path, text, masked text) of the result's items,
    values and attributes: `[0]`, `['ok']`, `.approved`.
    """

    ok: bool
    value: str = ""
    masked: str = ""
    stdout: str = ""
    stdout_masked: str = ""
    error: str = ""
    needs: tuple[str, ...] = ()  # stubbed modules the call used: it proves nothing
    parts: tuple[tuple[str, str, str], ...] = ()
    # It returned nothing: what it printed is output too (its value may be the object or
    # record it changed in place).
    printing: bool = False

    @classmethod
    def from_wire(cls, data: Any) -> Outcome:
        """Keep only well-typed, bounded fields of an outcome the child sent."""
        if not isinstance(data, dict):
            return cls(False, error="malformed outcome")
        if data.get("ok") is True:

            def text(key: str) -> str:
                return str(data.get(key, ""))[:4000]

            return cls(
                True,
                text("repr"),
                text("masked"),
                text("stdout"),
                text("stdout_masked"),
                parts=wire_parts(data.get("parts")),
                printing=data.get("printing") is True,
            )
        needs = data.get("needs")
        return cls(
            False,
            error=str(data.get("error", "unknown error"))[:2000],
            needs=tuple(str(n)[:200] for n in needs[:20]) if isinstance(needs, list) else (),
        )

    def same(self, other: Outcome) -> bool:
        """The same output, raw or with protected echoes masked.

        What a function prints is its output only when it returns nothing, or a program's
        exit status of success (`main()` prints its answer and returns 0): otherwise printing
        is logging, and a log line is not a decision.
        """
        if not (self.value == other.value or self.masked == other.masked):
            return False
        if not (self.prints and other.prints):
            return True
        return self.stdout == other.stdout or self.stdout_masked == other.stdout_masked

    def same_except(self, other: Outcome, unstable: frozenset[str]) -> bool:
        """The same output in every part that is not `unstable` (paths, "" the whole)."""
        if "" not in unstable or not self.parts or not other.parts:
            return self.same(other)
        mine, theirs = self.part_map, other.part_map
        if mine.keys() - unstable != theirs.keys() - unstable:
            return False
        return all(
            mine[p][0] == theirs[p][0] or mine[p][1] == theirs[p][1] for p in mine.keys() - unstable
        )

    @property
    def prints(self) -> bool:
        """Whether what it printed is part of its output (see `same`)."""
        return self.printing or self.value in PRINTING_RESULTS

    @property
    def part_map(self) -> dict[str, tuple[str, str]]:
        return {path: (text, masked) for path, text, masked in self.parts}

    def shown(self) -> str:
        """The output as a report shows it: the value, and what was printed when it is None."""
        text = self.value
        if self.prints and self.stdout:
            text += f"  (printed: {self.stdout.strip()[:200]!r})"
        return text

    @property
    def texts(self) -> tuple[str, str]:
        """Every unmasked text the output shows: its value and what it printed."""
        return self.value, self.stdout


def wire_parts(data: Any) -> tuple[tuple[str, str, str], ...]:
    """The (path, text, masked) parts of an outcome, as far as they are well-typed."""
    if not isinstance(data, list):
        return ()
    return tuple(
        (str(p[0])[:200], str(p[1])[:500], str(p[2])[:500])
        for p in data[:64]
        if isinstance(p, list) and len(p) == 3
    )


@dataclass(frozen=True)
class SharedProject:
    """A project as sandboxes see it: `path` is what targets get as `repo`, and `note` says
    what that view leaves out of the project ("" when nothing)."""

    path: str
    note: str = ""


@dataclass(frozen=True)
class Target:
    """What to load in the child and which callable to call.

    A standalone file is executed on its own. A file of a project is executed as its module
    (`module`, a package's `__init__` when `package`), with the project's files visible
    read-only: `repo` is the host folder to show, `filename` and `paths` (import roots) are
    relative to it, and the child runs in it as its working folder.
    """

    source: str
    filename: str
    qualname: str
    module: str | None = None
    package: bool = False
    repo: str | None = None
    paths: tuple[str, ...] = ()
    last_paths: tuple[str, ...] = ()  # searched after the standard library (project.py)
    stub: tuple[str, ...] = ()  # modules replaced by recording stubs, importable or not
    stub_missing: bool = True  # a module that cannot be imported is stubbed, not an error
    # evidence (analysis/evidence/): the host folder of recorded calls, shown read-only, and
    # the calls of this function in it (loaded with the module, outside any call's alarm)
    evidence: str | None = None
    recorded: tuple[str, ...] = ()
    # The environment variables the project's recorded run set (Evidence.environ), set
    # before the module loads: its calls ran with them.
    environ: tuple[tuple[str, str], ...] = ()
    # The parameters it changes in place when it returns nothing (analysis/facts/in_place.py):
    # what it leaves on them is its output.
    changes: tuple[str, ...] = ()
    # The module's set-up functions its callers run first (analysis/facts/preparations.py):
    # run once, after loading.
    prepare: tuple[str, ...] = ()
    # Tables the module builds as it loads, by dotted path, whose keys the child reads once
    # it has (analysis/facts/hint.py `loaded`): Session.table_keys.
    tables: tuple[str, ...] = ()


def rlimit_setter(limits: Limits) -> Callable[[], None]:
    """A preexec function that applies the resource limits in the child before exec."""

    def apply() -> None:
        mb = 1 << 20
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * mb, limits.memory_mb * mb))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        resource.setrlimit(
            resource.RLIMIT_FSIZE, (limits.file_size_mb * mb, limits.file_size_mb * mb)
        )
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class Executor:
    """Starts harness children. Subclasses decide the isolation around them.

    `interpreter` is the Python the children run (the project's, with `--python`), one value
    for everything this executor starts; codebias's own when none is given."""

    name = "process"
    _interpreter: Interpreter | None = None

    def __init__(self, interpreter: Interpreter | None = None) -> None:
        self._interpreter = interpreter

    @property
    def interpreter(self) -> Interpreter:
        if self._interpreter is None:
            self._interpreter = current_interpreter()
        return self._interpreter

    def argv(self, limits: Limits) -> list[str]:
        # Not -I: its -E would drop PYTHONHASHSEED below (the environment is ours entirely,
        # so -E guards nothing); -s and -P keep the user site and the cwd off sys.path.
        return [self.interpreter.executable, "-s", "-P", "-c", HARNESS_SCRIPT]

    def env(self) -> dict[str, str]:
        # Nothing of ours leaks: no tokens, no keys, no paths. Fixed hash seed so set and
        # dict orders are the same in every run.
        env = {"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        return env | SINGLE_THREADED

    def preexec(self, limits: Limits) -> Callable[[], None] | None:
        return rlimit_setter(limits)

    def repo_view(self, target: Target) -> str | None:
        """Where the child sees the target's project folder (here: where it is)."""
        return target.repo

    def evidence_view(self, target: Target) -> str | None:
        """evidence: where the child sees the target's folder of recorded calls."""
        return target.evidence

    @property
    def private_writes(self) -> bool:
        """evidence: whether what a session writes into its project stays in a view of its
        own, thrown away with it (the sandbox's scratch view); else a recording run, whose
        tests write, is given a copy of the project."""
        return False

    @contextmanager
    def share(self, folder: str) -> Iterator[SharedProject]:
        """The folder to give targets as `repo` while the caller holds it open."""
        yield SharedProject(folder)

    def open(self, target: Target, limits: Limits) -> Session:
        proc = subprocess.Popen(
            self.argv(limits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env(),
            cwd="/",
            start_new_session=True,  # its own process group, so we can kill all of it
            preexec_fn=self.preexec(limits),
        )
        return Session(proc, target, limits, self.repo_view(target), self.evidence_view(target))


class ProcessExecutor(Executor):
    """rlimits and a clean environment only: for `--trust-code`, never for pull requests."""


class Channel:
    """The parent's end of the reply channel: the session's key, and each reply checked
    against it in order (see harness/runner.py: "<MAC hex> <JSON>", the MAC over the reply's number
    and its JSON). A reply that fails is not the harness's: something in the sandbox wrote
    on the pipe."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key if key is not None else secrets.token_bytes(32)
        self.replies = 0

    def first_line(self) -> bytes:
        """What the harness reads before anything else: the key."""
        return self.key.hex().encode() + b"\n"

    def open(self, line: bytes) -> bytes:
        """The JSON of a reply line, once its MAC holds; raises ReplyForged otherwise."""
        mac, _, body = line.partition(b" ")
        expected = hmac.new(self.key, b"%d " % self.replies + body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, expected.encode()):
            raise ReplyForged(
                "a reply the harness did not send: code under test writes on its reply pipe"
            )
        self.replies += 1
        return body


class Session:
    """One child running one function's calls. Dies by timeout, crash or close().

    Every write to the child and every read from it is bounded by one deadline per request
    (within the session's wall clock): a child that stops reading holds the worker no longer
    than one that stops answering. Replies are checked against the session's key (Channel).
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        target: Target,
        limits: Limits,
        repo_view: str | None = None,
        evidence_view: str | None = None,
    ) -> None:
        self.proc = proc
        self.limits = limits
        # The session's clock runs behind the wall clock by the time the machine gave to
        # other work (analysis/execution/waiting.py): its deadline moves on by as much.
        self.waits = WaitClock(proc.pid, MAX_STRETCH * limits.session_timeout)
        self.deadline = time.monotonic() + limits.session_timeout
        self.last_deadline = self.deadline + self.waits.limit  # however long it waited
        self.lines: deque[bytes] = deque()  # reply lines read ahead, in order
        self.partial: list[bytes] = []  # the start of the next one, as read
        self.partial_bytes = 0
        self.calls = 0  # calls that ran, the one a dying child was in included
        self.free_calls = 0  # calls that touched no stubbed module
        self.call_seconds = 0.0  # spent in the calls of `timed_calls` (run)
        self.timed_calls = 0
        self.last_per_call = 0.0
        # A model's prediction, a simulation: a function whose one call takes seconds. Its
        # first call tells (more_time), and the timeout per call grows for it.
        self.call_timeout = limits.call_timeout
        self.answered = False  # a call has returned, raised or timed out for good
        self.load_error: str | None = None
        self.stubbed: tuple[str, ...] = ()  # modules the child replaced by stubs
        # The keys of the target's tables the module built as it loaded (Target.tables).
        self.table_keys: dict[str, tuple[Any, ...]] = {}
        self.channel = Channel()
        assert proc.stdin is not None
        os.set_blocking(proc.stdin.fileno(), False)
        try:
            reply = self.request(
                load_message(target, limits, repo_view, evidence_view),
                extra_seconds=limits.load_timeout + 2.0,  # the harness's load alarm, plus slack
                first=self.channel.first_line(),
            )
        except ReplyForged:
            raise
        except SessionDied as exc:
            raise LoadDied(f"while loading the module: {exc}") from None
        if not reply.get("loaded"):
            self.load_error = str(reply.get("error", "the module could not be loaded"))[:500]
        stubbed = reply.get("stubbed")
        if isinstance(stubbed, list):
            self.stubbed = tuple(str(m)[:200] for m in stubbed[:50])
        self.table_keys = read_table_keys(reply.get("tables"), target.tables)

    def run(
        self, calls: Sequence[Call], until: float | None = None, spare: int = 0
    ) -> list[Outcome]:
        """Run a batch of calls, one outcome each, in order.

        The child answers call by call: when it dies, the calls it answered and the one it
        died in are counted. A session whose every call so far touched a stubbed module
        stops after `limits.stubbed_calls` of them (CallsProveNothing): such calls prove
        nothing either way, and calling on would only spend the budget.

        `until`: a time by which the calls started should be over. They go in parts, each
        as many as surely end by then, and those that would not are left: the outcomes are
        of the calls run, in order, fewer than `calls` when the time ran out. Without it,
        a batch of slow calls ran past the session's wall clock, and its child died with
        every outcome unread. `spare`: calls to leave time for after these, at the pace
        seen so far.
        """
        outcomes: list[Outcome] = []
        while len(outcomes) < len(calls):
            rest = calls[len(outcomes) :]
            if not self.answered:  # how long one call takes is unknown yet: one tells
                size = 1 if until is None else min(self.affordable(until, 0), 1)
            else:
                size = len(rest) if until is None else self.affordable(until, spare)
            part = rest[:size]
            if size <= 0 or not part:
                break
            started = time.monotonic()
            got = self.run_part(part)
            if not self.answered and not self.more_time(got):
                continue  # the same call again, with the longer timeout
            self.call_seconds += time.monotonic() - started
            self.timed_calls += len(part)
            self.last_per_call = (time.monotonic() - started) / len(part)
            outcomes += got
        return outcomes

    def now(self) -> float:
        """The session's clock: the wall clock less the time the machine gave to other
        work; deadlines of the function's budget are read against it."""
        return time.monotonic() - self.waits.stolen

    def count_waits(self) -> None:
        self.deadline += self.waits.update()

    def more_time(self, outcomes: list[Outcome]) -> bool:
        """Whether the session's first call is answered: when it timed out, the call timeout
        grows (SLOW_CALL_TIMEOUT times) for it to run again; when it timed out with that
        too, the function hangs for that input and the timeout is as it was."""
        timed_out = any(o.error.startswith(TIMEOUT_ERROR) for o in outcomes)
        if timed_out and self.call_timeout == self.limits.call_timeout:
            self.call_timeout = self.limits.call_timeout * SLOW_CALL_TIMEOUT
            return False
        if timed_out:
            self.call_timeout = self.limits.call_timeout
        self.answered = True
        return True

    def affordable(self, until: float, spare: int) -> int:
        """How many calls surely end by `until` (each may take the call timeout: a call that
        raises at once says nothing of one that returns), leaving time for `spare` more at
        the pace seen so far."""
        left = until - time.monotonic() - spare * self.seconds_per_call()
        return max(0, int(left / self.call_timeout))

    def seconds_per_call(self) -> float:
        """Seen so far, or in the last calls when they were slower (a probe of a field is
        quick, the function's own calls not); the call timeout, before any call."""
        if not self.timed_calls:
            return self.call_timeout
        return max(self.call_seconds / self.timed_calls, self.last_per_call)

    def run_part(self, calls: Sequence[Call]) -> list[Outcome]:
        if not calls:
            return []
        # Each call's alarm runs up to MAX_STRETCH times its limit on a busy machine.
        deadline = self.request_deadline(self.call_timeout * len(calls) * MAX_STRETCH + 2.0)
        message = {"op": "call", "calls": [c.wire() for c in calls]}
        self.send({**message, "call_timeout": self.call_timeout}, deadline)
        outcomes: list[Outcome] = []
        needs: set[str] = set()
        self.count_waits()
        for _ in calls:
            try:
                outcome = Outcome.from_wire(self.read_reply(deadline))
            except SessionDied:
                self.calls += 1  # the call it died in ran too
                raise
            self.calls += 1
            outcomes.append(outcome)
            needs.update(outcome.needs)
            if not outcome.needs:
                self.free_calls += 1
            elif not self.free_calls and self.calls >= self.limits.stubbed_calls:
                self.close()
                raise CallsProveNothing(tuple(sorted(needs)), self.calls)
        return outcomes

    def request_deadline(self, extra_seconds: float) -> float:
        """When a request must be answered by: its own time, and at the latest when the
        session's deadline would be had the machine's other work pushed it all it may
        (check_time holds the session to its deadline as pushed so far)."""
        return min(self.last_deadline, time.monotonic() + extra_seconds)

    def request(
        self, message: dict[str, Any], extra_seconds: float, first: bytes = b""
    ) -> dict[str, Any]:
        deadline = self.request_deadline(extra_seconds)
        self.send(message, deadline, first)
        return self.read_reply(deadline)

    def send(self, message: dict[str, Any], deadline: float, first: bytes = b"") -> None:
        """Write one request, within `deadline` however slowly the child reads."""
        if self.proc.poll() is not None:
            raise SessionDied(self.death_reason())
        assert self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        data = memoryview(first + json.dumps(message).encode() + b"\n")
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                if not sel.select(self.check_time(deadline)):
                    continue
                try:
                    data = data[os.write(fd, data) :]
                except BlockingIOError:
                    continue
                except OSError:  # BrokenPipeError: the child is gone
                    self.close()
                    raise SessionDied(self.death_reason()) from None

    def check_time(self, deadline: float) -> float:
        """Seconds left before the request's deadline or the session's, whichever is first
        (the session's pushed on by the machine's other work counted so far); past either,
        the child is ended."""
        now = time.monotonic()
        if now >= self.deadline:
            self.count_waits()
        if now < min(deadline, self.deadline):
            return min(deadline, self.deadline) - now
        self.close()
        raise SessionDied(
            "the function exceeded the wall-clock limit "
            f"({self.limits.session_timeout:.0f}s per function)"
            if now >= self.deadline
            else "the function did not answer in time (it may ignore timeouts)"
        )

    def has_reply(self, seconds: float) -> bool:
        """Whether the child has written something to read (a reply, or its end), waiting
        up to `seconds` for it; a caller that has other things to watch polls this."""
        if self.lines:
            return True
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout.fileno(), selectors.EVENT_READ)
            return bool(sel.select(max(0.0, seconds)))

    def read_reply(self, deadline: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while not self.lines:
                if not sel.select(self.check_time(deadline)):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    self.close()
                    raise SessionDied(self.death_reason())
                self.take(chunk)
                if self.partial_bytes > self.limits.max_reply_bytes:
                    self.close()
                    raise SessionDied("the child's reply exceeded the size limit")
        line = self.lines.popleft()
        try:
            body = self.channel.open(line)
        except ReplyForged:
            self.close()
            raise
        try:
            reply = json.loads(body)
        except ValueError:
            self.close()
            raise SessionDied("the child answered something that is not JSON") from None
        if not isinstance(reply, dict):
            self.close()
            raise SessionDied("the child answered something that is not a JSON object")
        return reply

    def take(self, chunk: bytes) -> None:
        """Split what was read into reply lines; keep the unfinished one's pieces."""
        if b"\n" not in chunk:
            self.partial.append(chunk)
            self.partial_bytes += len(chunk)
            return
        first, *complete, rest = chunk.split(b"\n")
        self.lines.append(b"".join([*self.partial, first]))
        self.lines.extend(complete)
        self.partial, self.partial_bytes = ([rest], len(rest)) if rest else ([], 0)

    def death_reason(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "the child stopped answering"
        if code < 0:
            name = (
                signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else code
            )
            if -code == signal.SIGXCPU or -code == signal.SIGKILL:
                return f"the function was killed ({name}): it exceeded a CPU or memory limit"
            return f"the function crashed the interpreter ({name})"
        return f"the function ended the interpreter (exit code {code})"

    def close(self) -> None:
        """Kill the child's whole process group; safe to call twice."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_table_keys(tables: Any, asked: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    """The keys the child read of the tables asked for: scalars and Enum members only, so
    many at most (whatever else a reply holds is the module's doing, and dropped)."""
    if not isinstance(tables, dict):
        return {}
    kept: dict[str, tuple[Any, ...]] = {}
    for path in asked:
        keys = tables.get(path)
        if isinstance(keys, list):
            told = [k if json_scalar(k) else enum_member(k) for k in keys[:MAX_TABLE_KEYS]]
            kept[path] = tuple(k for k in told if k is not None)
    return kept


def enum_member(value: Any) -> EnumMember | None:
    """An Enum member the child read as a table's key (loading.enum_key), or None."""
    if isinstance(value, dict) and value.get("__cb__") == "enum":
        cls, member = value.get("class"), value.get("member")
        if isinstance(cls, str) and isinstance(member, str) and len(cls) + len(member) < 200:
            return EnumMember(cls, member)
    return None


def load_message(
    target: Target, limits: Limits, repo_view: str | None, evidence_view: str | None = None
) -> dict[str, Any]:
    """The harness's load request, with the project's paths as the child sees them."""

    inside = repo_view is not None and target.repo is not None
    base = repo_view or ""

    def seen(relative: str) -> str:
        return posixpath.join(base, relative) if relative else base

    return {
        "op": "load",
        "source": target.source,
        "filename": seen(target.filename) if inside else target.filename,
        "qualname": target.qualname,
        "module": target.module if inside else None,
        "package": target.package,
        "paths": [seen(p) for p in target.paths] if inside else [],
        "last_paths": [seen(p) for p in target.last_paths] if inside else [],
        "cwd": repo_view if inside else None,
        "stub": list(target.stub),
        "stub_missing": target.stub_missing,
        "call_timeout": limits.call_timeout,
        "load_timeout": limits.load_timeout,
        "evidence": evidence_view,  # evidence: recorded calls (harness/recorded.py)
        "recorded": list(target.recorded),
        "environ": dict(target.environ),
        "changes": list(target.changes),
        "prepare": list(target.prepare),
        "tables": list(target.tables),
    }
