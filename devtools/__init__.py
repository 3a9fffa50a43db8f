"""Helpers that the tests and the benchmarks share (a live gunicorn on a free loopback port, raw
HTTP requests, a closed-loop load generator). Neither the package nor its users import them."""
