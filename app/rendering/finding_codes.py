"""What each code of a check means, in a line, and where the documentation says more: the rules
of a SARIF log (``help`` and ``helpUri``). Lint's codes are those of docs/lint.md's table
(tests/rendering/test_finding_codes.py keeps the two equal); the command line's own checks
(``select --expect``, ``impact``, ``test``) are docs/ci.md's."""

from __future__ import annotations

from dataclasses import dataclass

LINT_PAGE, CI_PAGE = "lint.md", "ci.md"


@dataclass(frozen=True)
class CodeHelp:
    code: str
    summary: str
    page: str
    known: bool = True

    @property
    def anchor(self) -> str:
        """The anchor of the code's row in its page (``<a id="unknownfield">``); for a code
        this version does not know, the page's section on lint."""
        return self.code.lower() if self.known else "lint"

    def uri(self, docs_url: str | None) -> str | None:
        """Its documentation under ``docs_url`` (the URL of the docs/ directory), if known."""
        if not docs_url:
            return None
        return f"{docs_url.rstrip('/')}/{self.page}#{self.anchor}"


_LINT = {
    # kubectl, which maps no resource to the object.
    "NoKindMatch": "A kind of ome.io that OME does not define, or a version it does not serve.",
    # The API server: strict decoding and the CRD's schema.
    "UnknownField": "A field the CRD does not declare: strict decoding refuses the object.",
    "Required": "The CRD's schema requires a field the object lacks.",
    "Unsupported": "A value the CRD's enum does not list.",
    "Invalid": "A value or name the CRD's schema (or an RFC 1123 name) refuses.",
    # OME's webhooks.
    "RuntimeProfileNotDisabled": "A runtime profile must also set spec.disabled: true.",
    "InheritanceError": "An ome.io/inherit-from chain with a missing parent, a cycle, or too long.",
    "AutoscalerPolicyRefNotSupported": "A runtime's component names an autoscalerPolicyRef.",
    "ScalingModeNotImplemented": "spec.scalingPolicy.mode Proportional or Pinned.",
    "InvalidAutoscaler": "A malformed autoscaler block.",
    "UnknownAcceleratorClass": "acceleratorClasses names a class the cluster lacks.",
    "DifferentPriorities": "One format name with two priorities in one runtime.",
    "SamePriority": "Two runtimes give the same format the same priority.",
    "InvalidName": "An InferenceService name OME refuses (a dot in it).",
    "AutoscalerAnnotationConflict": "Autoscaler annotations that contradict each other.",
    "AutoscalerPolicyFeatureDisabled": "An autoscaler policy while the feature is off.",
    "InvalidTargetUtilization": "ome.io/targetUtilizationPercentage outside 1-100.",
    "DecoderWithoutEngine": "A decoder without an engine.",
    "InvalidLeaderWorkerPairing": "A leader without a worker, or the reverse.",
    "MultiPodLeanModelNeedsRunner": "A multi-pod component of a lean model without a runner.",
    "InvalidDeploymentModeCombination": "Engine and decoder deployment modes that differ.",
    "InvalidScaleToZero": "minReplicas: 0 without KEDA.",
    "InvalidReplicaBounds": "Replica bounds that contradict each other.",
    "InvalidDisruptionBudget": "minAvailable together with maxUnavailable.",
    "ReservedEndpointOverrideType": "traffic.endpointOverride.type: Metadata is reserved.",
    "ModelOrRuntimeRequired": "An InferenceService needs spec.model or spec.runtime.",
    "InvalidRevisionPin": "spec.runtime.revision without autoSync: false, or another runtime's.",
    "ModelNotFound": "The model the InferenceService names does not exist.",
    "CrossNamespacePVC": "A ClusterBaseModel on a PVC of another namespace.",
    "OverlayNotFound": "An overlay the InferenceService names does not exist.",
    "InvalidOverlay": "Overlay names OME refuses.",
    "NoRuntimeFound": "No runtime supports the model and the engine has no complete runner.",
    "ModelNotReady": "The model is not Ready.",
    "ModelDisabled": "The model is disabled.",
    "RuntimeNotFound": "The runtime the InferenceService names does not exist.",
    "RuntimeDisabled": "The runtime the InferenceService names is disabled.",
    "RuntimeInheritanceError": "The named runtime's inheritance chain is broken.",
    "RuntimeIncompatible": "The named runtime does not support the model.",
    "InvalidStorage": "A model's pvc:// or stage:// storage URI OME refuses.",
    # kubectl's warnings.
    "AutoSelected": "OME will auto-select this runtime for the model.",
    "ExplicitRuntimeAdvisory": "The named runtime does not declare the model's format.",
    "DeploymentStrategyIgnored": "deploymentStrategy is honoured in RawDeployment mode only.",
    # What OME accepts but rarely does what was meant.
    "AlsoRefused": "A refusal the object meets once the error before it is fixed.",
    "UnusualSize": "A size that reads as 0 or is not a plain decimal.",
    "EmptySizeRange": "modelSizeRange with min above max.",
    "UnparsableVersion": "A version OME never parses.",
    "UnknownOperator": "An operator OME reads as Equal.",
    "UnknownDeploymentMode": "A deployment-mode annotation OME ignores.",
    "NoAutoSelect": "No entry has autoSelect: true: OME never auto-selects the runtime.",
    "RuntimeVersionOnTheLeft": "GreaterThan accepts model versions below the entry's own.",
    "InheritedNotAutoSelected": "Automatic selection reads only the runtime's own spec.",
    "NoParameterSize": "No modelParameterSize: size ranges decide nothing for the model.",
    "ProfileMarkerNotTrue": 'ome.io/runtime-profile set to anything but "true" is ignored.',
    "OverlappingAutoSelect": "Two runtimes take the same models at the same priority.",
    "AcceleratorClassesUnknown": "No AcceleratorClass in the request: the classes are unchecked.",
    "MemoryNotWholeGiB": "memoryGB that is not a whole number of GiB.",
    "AcceleratorRequirementsIgnored": "OME ignores this acceleratorRequirements field.",
    "AcceleratorConfigNotListed": "An acceleratorConfig key that is not a listed class.",
    "OverrideConstraintsIgnored": "Constraints in an acceleratorOverride have no effect.",
    "PolicyShadowed": "A class named for the component makes its policy moot.",
    "BestFitWithoutConstraints": "BestFit without constraints stops OME's controller on a tie.",
}
_CI = {
    "UnexpectedRuntime": "OME selects another runtime than the one expected.",
    "NoRuntimeSelected": "OME selects no runtime where one is expected.",
    "UnexpectedEngineClass": "The engine gets another AcceleratorClass than the one expected.",
    "UnexpectedDecoderClass": "The decoder gets another AcceleratorClass than the one expected.",
    "UnexpectedAdmission": "kubectl apply would admit (or refuse) what is expected otherwise.",
    "MissingFinding": "A finding expected of lint does not appear.",
    "UnexpectedFinding": "A finding expected not to appear does.",
    "RuntimeChanged": "The change moves the InferenceService to another runtime, or to none.",
    "AnswerChanged": "The change alters what OME answers for the InferenceService.",
}
CODE_HELP = {
    **{code: CodeHelp(code, text, LINT_PAGE) for code, text in _LINT.items()},
    **{code: CodeHelp(code, text, CI_PAGE) for code, text in _CI.items()},
}


def help_of(code: str) -> CodeHelp:
    """A code's help; one this version does not know (a newer service's) points at the table."""
    found = CODE_HELP.get(code)
    return found or CodeHelp(code, f"{code}: see the table of codes.", LINT_PAGE, known=False)
