"""The root of codebias's errors, here because every package may raise one (see analysis/errors.py
for the whole tree). The policy is the lowest layer, so its error lives beside the root."""

from __future__ import annotations


class CodebiasError(Exception):
    """Base of every error codebias raises on purpose."""


class PolicyError(CodebiasError):
    """A policy layer that is not valid YAML or does not match the schema."""
