"""`toolgen build`: the IR → files, through pure emitters and one all-or-nothing writer.

Target-independent artifacts (schemas, tool definitions, provider views, digests) are
emitted here; `python/` holds the Python target (models, server stub, client).
"""
