"""Small helpers every folder may use: bounded caches, visible text, text spans, pausing the
garbage collector, loading late, numpy arrays in Arrow's memory pool, and bitmaps as numpy
reads them."""
