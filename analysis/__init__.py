"""codebias engine: tests Python functions for social bias and proves each finding."""

from analysis.engine import ENGINE_VERSION, Engine
from analysis.errors import CodebiasError, ExecutionError, SandboxUnavailable, SourceError
from analysis.report import Example, Finding, FunctionReport, ScanReport

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
