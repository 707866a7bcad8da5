"""A load level: what one level of a bench run held constant (``docs/measurement.md``).

Closed loop keeps ``concurrency`` requests in flight; open loop sends Poisson arrivals at
``request_rate`` per second, optionally capped at ``max_in_flight`` requests in flight (the wait
for a free slot is reported as queue delay). The three are separate fields: a level at 2 req/s
with at most 4 in flight is *not* a level at concurrency 4. Levels are compared and selected
as values of this type, never by the text of their labels.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

_LABEL = re.compile(r"^(?:c=?(?P<c>\d+)|rate=(?P<r>[0-9.eE+-]+))$")


class Level(BaseModel):
    """One level of a run. Exactly one of ``concurrency`` (closed loop) and ``request_rate``
    (open loop) is set; ``max_in_flight`` only with ``request_rate``.

    Raises:
        pydantic.ValidationError: both or neither of ``concurrency`` and ``request_rate``, or
            ``max_in_flight`` without ``request_rate``.
    """

    model_config = ConfigDict(frozen=True)

    concurrency: int | None = Field(None, ge=1, description="closed loop: requests kept in flight")
    request_rate: float | None = Field(None, gt=0, description="open loop: Poisson arrivals, requests/s")
    max_in_flight: int | None = Field(None, ge=1, description="open loop: cap on requests in flight "
                                                               "(None: no cap)")

    @model_validator(mode="after")
    def _one_loop(self) -> Level:
        if (self.concurrency is None) == (self.request_rate is None):
            raise ValueError("a level has either a concurrency (closed loop) or a request rate (open loop)")
        if self.max_in_flight is not None and self.request_rate is None:
            raise ValueError("max_in_flight belongs to an open-loop level (with a request rate)")
        return self

    @classmethod
    def closed(cls, concurrency: int) -> Level:
        return cls(concurrency=concurrency)

    @classmethod
    def open(cls, request_rate: float, max_in_flight: int | None = None) -> Level:
        return cls(request_rate=request_rate, max_in_flight=max_in_flight)

    @property
    def is_open(self) -> bool:
        return self.request_rate is not None

    @property
    def label(self) -> str:
        """The short label bench shows and writes: ``"c=4"``, ``"rate=2"``, ``"rate=0.5"``."""
        if self.request_rate is not None:
            return f"rate={self.request_rate:g}"
        return f"c={self.concurrency}"

    @property
    def name(self) -> str:
        """The level in words, for verdicts and tables: ``"concurrency 4"``, ``"rate 2 req/s"``
        (``"rate 2 req/s, at most 4 in flight"`` with a cap)."""
        if self.request_rate is None:
            return f"concurrency {self.concurrency}"
        cap = f", at most {self.max_in_flight} in flight" if self.max_in_flight is not None else ""
        return f"rate {self.request_rate:g} req/s{cap}"

    @property
    def sort_key(self) -> tuple[int, float]:
        """Closed-loop levels first, by concurrency; then open-loop levels by rate."""
        if self.request_rate is None:
            return (0, float(self.concurrency or 0))
        return (1, self.request_rate)

    @classmethod
    def from_label(cls, label: str, max_in_flight: int | None = None) -> Level | None:
        """The level a label names (``"c=4"``, ``"c4"``, ``"rate=2"``), or ``None`` for another text.
        Used only to read records whose summary is missing (an interrupted run)."""
        m = _LABEL.match(str(label).strip())
        if not m:
            return None
        if m.group("c"):
            return cls.closed(int(m.group("c")))
        try:
            return cls.open(float(m.group("r")), max_in_flight)
        except ValueError:
            return None
