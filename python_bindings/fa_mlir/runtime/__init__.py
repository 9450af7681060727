"""The runtime half: launch plans on PyTorch tensors (pure Python).

plan.py needs nothing but Python; launch.py imports torch and cuda-python
when a plan is first loaded.
"""
from .plan import (GRID_LIMITS, PLAN_FORMAT, PLAN_VERSION, LaunchPlan, PlanFormatError,
                   TensorInfo, attention_scalars, evaluate, load_plan_file)

__all__ = ["GRID_LIMITS", "PLAN_FORMAT", "PLAN_VERSION", "LaunchPlan", "LoadedPlan", "Plan",
           "PlanFormatError", "TensorInfo", "attention_scalars", "evaluate", "load_plan_file"]


def __getattr__(name):
    if name in ("Plan", "LoadedPlan"):
        from . import launch
        return getattr(launch, name)
    raise AttributeError("module 'fa_mlir.runtime' has no attribute %r" % name)
