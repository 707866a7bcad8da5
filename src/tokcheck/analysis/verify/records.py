"""The typed results of verify: conditions, checks, symptoms and the verdict."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

@dataclass
class Condition:
    """One condition side by side. ``status``: ``match`` / ``differ`` / ``unknown``."""

    name: str
    claimed: Any
    run: Any
    status: str
    blocking: bool
    source: str | None = None


@dataclass
class Check:
    """One of the guide's seven checks. ``status``: ``pass`` (checked, not the cause),
    ``warn`` (could contribute), ``fail`` (found a cause or a fault), ``unknown`` (the record
    holds no evidence). ``evidence``: readable lines, each citing the record field it rests on."""

    number: int
    name: str
    status: str
    evidence: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)


@dataclass
class Symptom:
    """A symptom guide of the guide (5.1–5.3) triggered by the evidence."""

    symptom: str
    evidence: list[str]
    steps: list[str]


@dataclass
class Verdict:
    """The outcome of :func:`verify`. ``ratio`` = measured ÷ claimed; ``reproduced`` is
    ``None`` when the two are incomparable (``incomparable_reasons`` says why)."""

    metric: str | None
    metric_definition: str | None
    unit: str | None
    claimed: float | None
    measured: float | None
    ratio: float | None
    tolerance: float
    reproduced: bool | None
    summary: str
    level: dict[str, Any] | None
    measured_rounds: list[float] | None
    measured_spread: Any
    conditions: list[Condition]
    incomparable_reasons: list[str]
    checks: list[Check]
    symptoms: list[Symptom]
    run_dir: str
    bound: dict[str, Any] | None = None
    claim_tool: str | None = None
    measured_tokcheck: float | None = None
    definitions: dict[str, dict[str, float | None]] | None = None
    traps: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form: ``metric``, ``claimed``, ``measured``, ``ratio``,
        ``reproduced``, ``conditions`` (name → match/differ/unknown), ``checks`` (the seven,
        in order, each with ``status`` and ``evidence``) and the details beside them."""
        return {
            "metric": self.metric,
            "metric_definition": self.metric_definition,
            "unit": self.unit,
            "claimed": self.claimed,
            "measured": self.measured,
            "ratio": self.ratio,
            "tolerance": self.tolerance,
            "reproduced": self.reproduced,
            "summary": self.summary,
            "level": self.level,
            "measured_rounds": self.measured_rounds,
            "measured_spread": self.measured_spread,
            "conditions": {c.name: c.status for c in self.conditions},
            "condition_details": [asdict(c) for c in self.conditions],
            "incomparable_reasons": list(self.incomparable_reasons),
            "checks": [asdict(c) for c in self.checks],
            "symptoms": [asdict(s) for s in self.symptoms],
            "bound": self.bound,
            "run_dir": self.run_dir,
            "claim_tool": self.claim_tool,
            "measured_tokcheck": self.measured_tokcheck,
            "definitions": self.definitions,
            "traps": [asdict(t) for t in self.traps],
        }
