package broker

// Names the external tests compare with their owners'.
const (
	AnnotationRevokeForTest   = annotationRevoke
	AnnotationInjectedForTest = annotationInjected
)
