"""The project's own tools, never installed with the package: helpers that the tests and the
benchmarks share (a live gunicorn on a free loopback port, raw HTTP requests, a closed-loop load
generator, a throwaway redis-server) and :mod:`devtools.vectors`, the generator of the published
conformance vectors. Neither the package nor its users import them."""
