"""What ``kubectl apply`` would answer (rules §13, §18, §20.7), as the API server's validation and
OME's admission webhooks do (OME's ``pkg/webhook/admission/{isvc,servingruntime,basemodel}``):
every object judged against the others (``admit``), the findings, and the rankings that will
cost, counted before they start. The CRD schemas the API server checks first are read from
files, in ``app/schemas/crd``."""

from .findings import ERROR, INFO, NO_KIND_MATCH, WARNING, Admission, Finding, Refusal
from .judgement import admit, planned_admission_rankings

__all__ = [
    "ERROR",
    "INFO",
    "NO_KIND_MATCH",
    "WARNING",
    "Admission",
    "Finding",
    "Refusal",
    "admit",
    "planned_admission_rankings",
]
