"""The subcommands of ``arbiter``, one module each: ``replay``, ``validate``, ``score``,
``serve`` and ``conformance``.

Each module holds its arguments (``register(subparsers)``) and its ``run(args)``, which returns
an :class:`~arbiter.commands.console.ExitStatus`; :mod:`~arbiter.commands.console` is what they
share (exit status, error lines, an output its reader may close, the catalogue's words).
:mod:`arbiter.cli` builds the parser from them at every start, ``arbiter serve`` included, so a
module imports at its top only what the parser needs: the service, the archive runner and the
conformance kit are imported inside ``run``.
"""
