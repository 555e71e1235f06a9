"""gold_tools: checking a gold set against its corpus and importing one (``evalgate gold check|import``).

Apart from :mod:`evalgate_lib.inputs`, which only loads what a run reads: a run never calls
these, and these call nothing above the inputs.
"""
