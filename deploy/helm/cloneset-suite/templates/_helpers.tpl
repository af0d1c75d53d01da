{{- define "cloneset-suite.labels" -}}
app.kubernetes.io/name: cloneset-suite
app.kubernetes.io/component: controller-manager
{{- end }}

{{- define "cloneset-suite.allLabels" -}}
{{ include "cloneset-suite.labels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}
