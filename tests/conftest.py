"""Shared pytest configuration: Hypothesis profiles.

``ci`` (the default) is bounded and deterministic; ``dev`` explores more. Choose with
``HYPOTHESIS_PROFILE=dev``.
"""

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
