"""The mechanical rules, one per form of bias; each rewrites what it recognises and leaves
the rest to the next (see `base.Rule`). `RULES` holds them by name, in the order a fix tries
them."""

from analysis.mitigation.mechanical.rules.base import RULES, Rule, register
from analysis.mitigation.mechanical.rules.collapse_branch import CollapseBranch
from analysis.mitigation.mechanical.rules.drop_filter import DropFilter
from analysis.mitigation.mechanical.rules.neutral_entry import NeutralEntry
from analysis.mitigation.mechanical.rules.pin_reference import PinReference

__all__ = [
    "RULES",
    "CollapseBranch",
    "DropFilter",
    "NeutralEntry",
    "PinReference",
    "Rule",
    "register",
]
