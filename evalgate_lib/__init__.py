"""EvalGate: auditable, reproducible before/after evaluation of a RAG pipeline.

The library is organised along the data flow
corpus → chunks → retrieval → generation → scores → flags → report;
each step lives in its own module (see docs/DESIGN.md).
"""

from evalgate_lib.version import __version__
