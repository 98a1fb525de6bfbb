"""Social assistance rules as a package: tests in eligibility.py, awards in awards.py that
import them absolutely and as a module, and a caseworker class."""
