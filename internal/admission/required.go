package admission

// LabelCredentialsRequired, set to "true" on a pod (template) beside its
// leash.dev/credentials annotation, makes the pod fail closed in every
// namespace the webhooks are called for: deploy/base/webhook.yaml's mutating
// webhook WebhookRequired selects it (objectSelector) with failurePolicy
// Fail, so that while the webhook is down such a pod is refused rather
// than stored unwired, where its AWS SDK would fall back to the node's
// role. Other pods of a namespace without leash.dev/admission=enforce stay
// under failurePolicy Ignore, and are not held by an operator restart.
const LabelCredentialsRequired = "leash.dev/credentials-required"

// WebhookRequired is the mutating webhook that fails closed for pods
// labelled LabelCredentialsRequired=true.
const WebhookRequired = "required.pods.leash.dev"
