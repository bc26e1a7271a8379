"""Inputs to IR: YAML/JSON sources with positions, the spec model, discovery of spec sets,
`$ref` resolution, published tool definitions, and the one load pipeline (`pipeline`).
"""
