{{/* Labels every object carries: deploy/'s, and Helm's own. */}}
{{- define "leash.labels" -}}
app.kubernetes.io/name: leash
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The operator's pods: the selector, which never changes after install. */}}
{{- define "leash.selector" -}}
app.kubernetes.io/name: leash
app.kubernetes.io/component: operator
{{- end }}

{{- define "leash.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
