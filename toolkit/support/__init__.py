"""Small helpers every folder may use: bounded caches, visible text, text spans, pausing the
garbage collector, and loading late."""
