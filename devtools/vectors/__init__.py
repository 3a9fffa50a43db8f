"""The generator of the published conformance vectors: the search that finds them in random and
hand-built games (docs/conformance.md, "The vectors").

It is how the project makes ``conformance/``, not what users run: the installed kit
(:mod:`arbiter.conformance.kit`) reads the published set and never imports this package (a
test keeps it so). ``python -m devtools.vectors --out conformance`` writes the set again;
tests/test_conformance_kit.py checks that it writes the same bytes.
"""
