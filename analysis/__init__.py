"""codebias engine: tests Python functions for social bias and proves each finding."""

from analysis.engine import Engine
from analysis.errors import CodebiasError, ExecutionError, SandboxUnavailable, SourceError
from analysis.report import Example, Finding, FunctionReport, ScanReport
from analysis.version import ENGINE_VERSION

__all__ = [
    "ENGINE_VERSION",
    "CodebiasError",
    "Engine",
    "Example",
    "ExecutionError",
    "Finding",
    "FunctionReport",
    "SandboxUnavailable",
    "ScanReport",
    "SourceError",
]
