"""IR to files: pure emitters (`emit/`), jinja templates, the build pipeline, the build cache,
and the one writer that touches the disk (all-or-nothing).
"""
