"""Every error the engine raises, in one tree.

CodebiasError
├── PolicyError          a policy that does not validate (config/errors.py, beside the root:
│                        the policy is the lowest layer; re-exported here)
├── SourceError          a file that cannot be read or holds no parsable Python
├── RequirementMissing   a module the policy requires (python.require) is not importable
└── ExecutionError       the process running the code under test failed us
    ├── SandboxUnavailable   isolation cannot be set up here; nothing untrusted may run
    ├── SessionDied          the child died or broke protocol (timeout, crash, bad reply)
    └── InvalidEvidence      a recorded call the child sent is off-shape (dropped, counted)
"""

from __future__ import annotations

from config.errors import CodebiasError, PolicyError

__all__ = [
    "CodebiasError",
    "PolicyError",
    "SourceError",
    "RequirementMissing",
    "ExecutionError",
    "SandboxUnavailable",
    "SessionDied",
    "InvalidEvidence",
]


class SourceError(CodebiasError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class RequirementMissing(CodebiasError):
    pass


class ExecutionError(CodebiasError):
    pass


class SandboxUnavailable(ExecutionError):
    pass


class SessionDied(ExecutionError):
    pass


class InvalidEvidence(ExecutionError):
    pass
