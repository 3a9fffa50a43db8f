"""The conformance checker: what a user of ``arbiter conformance check`` runs.

:mod:`.protocol` (the vectors and the questions an engine receives), :mod:`.vector_files` (a
directory of vectors and its manifest), :mod:`.referee_answers` (what the referee answers, in
the vectors' form), :mod:`.engines` (the engine under test: a command or an HTTP service),
:mod:`.grading` (an answer against the expected one), :mod:`.checker` (a run over many vectors)
and :mod:`.report` (tables and explanations in the referee's words).
"""
