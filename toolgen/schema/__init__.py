"""JSON Schema 2020-12 helpers: walking, pointers, allOf merges, dialects, checks, validators,
samples.

The bottom of the package: nothing here imports another part of toolgen.
"""
