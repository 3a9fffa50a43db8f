"""The search behind ``arbiter conformance export``: the published vectors found in random and
hand-built games (docs/conformance.md, "The vectors")."""
