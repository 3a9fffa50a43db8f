"""Helpers that the tests and the benchmarks share (a live gunicorn on a free loopback port, raw
HTTP requests, a closed-loop load generator, a throwaway redis-server). Neither the package nor
its users import them."""
