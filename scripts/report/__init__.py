"""The run report of `lampsim report RUN_DIR` (scripts/plot_sweep.py hands a run directory here):
one self-contained HTML page rendered from templates/run.html.j2 with Jinja2, leading with the
answer (headline figures), then the cycle stack, unit utilisation, stalls and energy as static
matplotlib SVG figures, then every report field with its unit and meaning (from the field
reference of sim/report/field_docs.c, which `lampsim report` passes as --fields FILE)."""
