{{- define "bulwark.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "bulwark.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "gateway") */}}
{{- define "bulwark.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "bulwark.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The services and their fixed ports (the runtime's defaults of the scaled mode). */}}
{{- define "bulwark.services" -}}
identity: { http: 7101, grpc: 7201 }
catalog: { http: 7102, grpc: 7202 }
scanning: { http: 7103, grpc: 7203 }
issues: { http: 7104, grpc: 7204 }
reporting: { http: 7105, grpc: 7205 }
notifications: { http: 7106, grpc: 7206 }
{{- end -}}

{{- define "bulwark.secretName" -}}
{{ .Values.secrets.existingSecret | default (printf "%s-secrets" (include "bulwark.fullname" .)) }}
{{- end -}}

{{- define "bulwark.serviceAccountName" -}}
{{ include "bulwark.fullname" . }}
{{- end -}}

{{- define "bulwark.scanNamespace" -}}
{{ .Values.scanning.namespace | default .Release.Namespace }}
{{- end -}}

{{- define "bulwark.validate" -}}
{{- if not .Values.allInOne.enabled -}}
{{- if not (or .Values.postgresql.url .Values.postgresql.existingSecret) -}}{{ fail "scaled mode (allInOne.enabled=false) needs postgresql.url or postgresql.existingSecret" }}{{- end -}}
{{- if not .Values.kafka.brokers -}}{{ fail "scaled mode (allInOne.enabled=false) needs kafka.brokers" }}{{- end -}}
{{- if not (or .Values.redis.url .Values.redis.existingSecret) -}}{{ fail "scaled mode (allInOne.enabled=false) needs redis.url or redis.existingSecret" }}{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The environment of every process: plain settings from the ConfigMap, secrets from their Secrets.
*/}}
{{- define "bulwark.envFrom" -}}
- configMapRef:
    name: {{ include "bulwark.fullname" . }}-env
- secretRef:
    name: {{ include "bulwark.secretName" . }}
{{- if or (and .Values.postgresql.url (not .Values.postgresql.existingSecret)) (and .Values.redis.url (not .Values.redis.existingSecret)) }}
- secretRef:
    name: {{ include "bulwark.fullname" . }}-datastores
{{- end }}
{{- if .Values.postgresql.existingSecret }}
- secretRef:
    name: {{ .Values.postgresql.existingSecret }}
{{- end }}
{{- if .Values.redis.existingSecret }}
- secretRef:
    name: {{ .Values.redis.existingSecret }}
{{- end }}
{{- end -}}

{{/* Pod spec parts shared by every Deployment: (dict "root" $ "component" name "ports" list "env" dict "resources" dict "volumes" list) */}}
{{- define "bulwark.podSpec" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
serviceAccountName: {{ include "bulwark.serviceAccountName" $root }}
automountServiceAccountToken: {{ .automountToken | default false }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $v.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: {{ add $v.termination.preStopSleepSeconds $v.termination.shutdownTimeoutSeconds 5 }}
containers:
  - name: bulwark
    image: {{ include "bulwark.image" $root }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    securityContext:
      {{- toYaml $v.securityContext | nindent 6 }}
    envFrom:
      {{- include "bulwark.envFrom" $root | nindent 6 }}
    env:
      {{- range $k, $val := .env }}
      - name: {{ $k }}
        value: {{ $val | quote }}
      {{- end }}
    ports:
      {{- range .ports }}
      - name: {{ .name }}
        containerPort: {{ .port }}
        protocol: TCP
      {{- end }}
    startupProbe:
      httpGet: { path: /healthz, port: {{ .probePort }} }
      periodSeconds: {{ $v.probes.startup.periodSeconds }}
      failureThreshold: {{ $v.probes.startup.failureThreshold }}
    livenessProbe:
      httpGet: { path: /healthz, port: {{ .probePort }} }
      periodSeconds: {{ $v.probes.liveness.periodSeconds }}
      timeoutSeconds: {{ $v.probes.liveness.timeoutSeconds }}
      failureThreshold: {{ $v.probes.liveness.failureThreshold }}
    readinessProbe:
      httpGet: { path: /readyz, port: {{ .probePort }} }
      periodSeconds: {{ $v.probes.readiness.periodSeconds }}
      timeoutSeconds: {{ $v.probes.readiness.timeoutSeconds }}
      failureThreshold: {{ $v.probes.readiness.failureThreshold }}
    lifecycle:
      preStop:
        exec:
          command: ["sleep", "{{ $v.termination.preStopSleepSeconds }}"]
    resources:
      {{- toYaml .resources | nindent 6 }}
    volumeMounts:
      - { name: tmp, mountPath: /tmp }
      - { name: data, mountPath: /var/lib/bulwark/data }
volumes:
  - name: tmp
    emptyDir: {}
  {{- if .dataClaim }}
  - name: data
    persistentVolumeClaim:
      claimName: {{ .dataClaim }}
  {{- else }}
  - name: data
    emptyDir: {}
  {{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.affinity | default $v.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "bulwark.podAnnotations" -}}
{{- $v := .root.Values -}}
{{- with $v.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- if $v.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .port | quote }}
prometheus.io/path: /metrics
{{- end }}
checksum/env: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
{{- end -}}
