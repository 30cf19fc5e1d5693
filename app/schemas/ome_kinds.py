"""The names OME's documents are known by (apiVersion, kinds, the annotations the rules read) and
the CRD's integer bounds: what the readers and the plain-Python loaders need of the schemas'
facts without loading marshmallow (a local lint of valid manifests never imports it)."""

from __future__ import annotations

API_VERSION = "ome.io/v1beta1"
MODEL_KINDS = ("BaseModel", "ClusterBaseModel")
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
ISVC_KIND = "InferenceService"
ACCELERATOR_CLASS_KIND = "AcceleratorClass"
DEPLOYMENT_MODE_ANNOTATION = "ome.io/deploymentMode"
ACCELERATOR_CLASS_ANNOTATION = "ome.io/accelerator-class"
INHERIT_FROM_ANNOTATION = "ome.io/inherit-from"

# The CRD's integer types (issue: out-of-range values are invalid documents in the cluster):
# priority is an int32 of at least 1, weights are int64.
PRIORITY_MIN, PRIORITY_MAX = 1, 2**31 - 1
WEIGHT_MIN, WEIGHT_MAX = -(2**63), 2**63 - 1


def is_pvc_uri(value: object) -> bool:
    """A model's storage URI that names a PVC: the only one the rules read (rules §18)."""
    return isinstance(value, str) and value.startswith("pvc://")
