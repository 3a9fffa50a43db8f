"""Hostile clients against a live server started as ``make run`` starts it (issue 12).

One module per finding of the attack on the service; each test talks to a real gunicorn on a
free loopback port (``arbiter serve``, the shipped ``deploy/gunicorn.conf.py``) with bounded
timeouts, or runs the real command. See conftest.py for the shared server and raw-socket helpers.
"""
