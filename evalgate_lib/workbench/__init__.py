"""workbench: the Jupyter side: executing the numbered notebooks into the report, their parameters
and the save hook that commits them without outputs, and the labelling widget.

Apart from :mod:`evalgate_lib.reporting`, which only renders (HTML, charts, tables) and never
starts a kernel or holds widget state.
"""
