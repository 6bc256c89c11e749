{{/* Names and labels. */}}
{{- define "gapwatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gapwatch.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "gapwatch.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "gapwatch.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gapwatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gapwatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gapwatch.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gapwatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "gapwatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gapwatch.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image of one role: dict "root" $ "settings" <role values>; a role's imageTag wins (upgrade order). */}}
{{- define "gapwatch.image" -}}
{{- $root := .root -}}
{{- $tag := default (default $root.Chart.AppVersion $root.Values.image.tag) .settings.imageTag -}}
{{- printf "%s:%s" $root.Values.image.repository $tag -}}
{{- end -}}

{{/* The Deployments' roles: [all] or [collector, web]. Fails with what to fix on a bad combination of values. */}}
{{- define "gapwatch.roles" -}}
{{- if eq .Values.role "all" -}}
all
{{- else if eq .Values.role "split" -}}
{{- if ne .Values.store.kind "postgres" -}}
{{- fail "role split needs store.kind: postgres (collectors and web instances share the store); set store.kind and store.postgres.urlSecret" -}}
{{- end -}}
collector web
{{- else -}}
{{- fail (printf "role must be all or split, not %q" .Values.role) -}}
{{- end -}}
{{- $configDir := dir .Values.configPath -}}
{{- range .Values.extraSecretMounts -}}
{{- if or (eq .mountPath $configDir) (hasPrefix (printf "%s/" $configDir) .mountPath) -}}
{{- fail (printf "extraSecretMounts %s: mountPath %s is inside the config's folder %s; mount it elsewhere, e.g. /etc/gapwatch-secrets/%s" .name .mountPath $configDir .name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding gapwatch.config.yaml: the user's existingSecret or the chart's. */}}
{{- define "gapwatch.configSecretName" -}}
{{- default (printf "%s-config" (include "gapwatch.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{/*
gapwatch.config.yaml as the chart renders it: config, with the Kubernetes names and the pod IP added to
server.allowedHosts when allowKubernetesHosts is on (Gapwatch refuses other Host headers with 421: proxy.ts).
*/}}
{{- define "gapwatch.configYaml" -}}
{{- $config := deepCopy .Values.config -}}
{{- if not $config.clusters -}}
{{- fail "config.clusters is empty: list the Kafka clusters to watch (alias and bootstrap each), or set existingSecret" -}}
{{- end -}}
{{- $store := default dict $config.store -}}
{{- if ne (default "sqlite" $store.kind) .Values.store.kind -}}
{{- fail (printf "config.store.kind is %q but store.kind is %q: set both to the same kind" (default "sqlite" $store.kind) .Values.store.kind) -}}
{{- end -}}
{{- if .Values.allowKubernetesHosts -}}
{{- $server := default dict $config.server -}}
{{- $hosts := list -}}
{{- if $server.allowedHosts -}}
{{- $hosts = concat $hosts $server.allowedHosts -}}
{{- else if $server.publicUrl -}}
{{- $hosts = append $hosts (urlParse $server.publicUrl).host -}}
{{- end -}}
{{- $hosts = concat $hosts (list "localhost" "127.0.0.1" "[::1]") -}}
{{- $ns := .Release.Namespace -}}
{{- range $svc := (list (include "gapwatch.fullname" .) (printf "%s-collector" (include "gapwatch.fullname" .))) -}}
{{- $hosts = concat $hosts (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) -}}
{{- end -}}
{{- $hosts = append $hosts "${GAPWATCH_POD_IP}" -}}
{{- $_ := set $server "allowedHosts" (uniq $hosts) -}}
{{- $_ := set $config "server" $server -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}
