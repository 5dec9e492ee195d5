"""The tests, in folders that mirror cuteverify's packages (tests/oracles/: the shared oracles).

A package only so that pytest puts the repository root, not tests/, on sys.path: tests/triton/ must not
shadow the real ``triton`` package."""
