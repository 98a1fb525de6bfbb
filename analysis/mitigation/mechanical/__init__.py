"""Fixes without a language model: small named rules, one per common form of bias, rewrite
the function into the code the policy's reference group already gets (a branch collapsed, a
table's neutral entry, a filter taken out, the attribute worked out where it enters a
computation), and each rewrite is verified as a model's answer is before it is shown.

    result = mechanical_fix(engine, source, "hiring.py", "assess")
    if result.status == "fixed":
        print(result.rule, result.patch)
"""

from analysis.mitigation.mechanical.fixer import STRATEGY, mechanical_fix
from analysis.mitigation.mechanical.rules import RULES, Rule

__all__ = ["RULES", "STRATEGY", "Rule", "mechanical_fix"]
