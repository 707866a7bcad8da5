"""tokcheck: judge, reproduce and explain LLM inference speed claims.

The library API lives in the capability modules (``claim``, ``roofline``, ``bench`` …);
``tokcheck.cli`` is a thin command line over them.
"""

__version__ = "0.1.0"
