"""JSON Schema 2020-12 helpers: walking sub-schemas, references, metaschema checks and
validators, defaults and nulls, sample data. Imports only `toolgen.core`.
"""
