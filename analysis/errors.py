"""Every error the engine raises, in one tree.

CodebiasError
├── PolicyError          a policy that does not validate (config/errors.py, beside the root:
│                        the policy is the lowest layer; re-exported here)
├── SourceError          a file that cannot be read or holds no parsable Python
├── RequirementMissing   a module the policy requires (python.require) is not importable
├── InterpreterError     the Python chosen for the code under test (--python) cannot serve
└── ExecutionError       the process running the code under test failed us
    ├── SandboxUnavailable   isolation cannot be set up here; nothing untrusted may run
    ├── CallsProveNothing    every call so far touched a stubbed module: calling on is futile
    ├── InvalidEvidence      a recorded call the child sent is off-shape (dropped, counted)
    └── SessionDied          the child died or broke protocol (timeout, crash, bad reply)
        ├── LoadDied         ... while it loaded the module, before any call
        └── ReplyForged      a reply the harness did not send (it fails the session's MAC)
"""

from __future__ import annotations

from config.errors import CodebiasError, PolicyError

__all__ = [
    "CodebiasError",
    "PolicyError",
    "SourceError",
    "RequirementMissing",
    "InterpreterError",
    "ExecutionError",
    "SandboxUnavailable",
    "SessionDied",
    "LoadDied",
    "ReplyForged",
    "CallsProveNothing",
    "InvalidEvidence",
]


class SourceError(CodebiasError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class RequirementMissing(CodebiasError):
    pass


class InterpreterError(CodebiasError):
    def __init__(self, executable: str, reason: str) -> None:
        super().__init__(f"{executable}: {reason}")
        self.executable = executable
        self.reason = reason


class ExecutionError(CodebiasError):
    pass


class SandboxUnavailable(ExecutionError):
    pass


class SessionDied(ExecutionError):
    pass


class LoadDied(SessionDied):
    pass


class ReplyForged(SessionDied):
    pass


class CallsProveNothing(ExecutionError):
    """The calls of a session all touched stubbed modules (`needs`), `calls` of them."""

    def __init__(self, needs: tuple[str, ...], calls: int) -> None:
        named = ", ".join(needs) or "a stubbed module"
        super().__init__(
            f"needs {named}, which cannot be imported here (stubbed): every call used it, "
            f"stopped after {calls} calls"
        )
        self.needs = needs
        self.calls = calls


class InvalidEvidence(ExecutionError):
    pass
