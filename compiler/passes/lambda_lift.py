"""The lambda_lift pass (being written)."""

from __future__ import annotations
