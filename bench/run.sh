#!/usr/bin/env bash
# Measures `bulwark parse --count` against plain JSON.parse of the same files (the floor).
# Run from the repository root after `npm install && npm run build`:  bash bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d /tmp/bulwark-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
node bench/generate.js "$dir" 100000 >/dev/null

measure() { # label, command...
  local label=$1; shift
  local out
  out=$( { /usr/bin/time -v "$@" >"$dir/stdout"; } 2>&1 )
  local secs rss
  secs=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}')
  rss=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}')
  local findings
  findings=$(head -c 40 "$dir/stdout" | tr -d '\n')
  local rate
  rate=$(awk -v n="$findings" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
  printf '| %-40s | %8s | %10s | %9s | %10s | %12s |\n' "$label" "$(du -m "$file" | cut -f1) MB" "$findings" "${secs}s" "$rate" "$rss MB"
}

printf '| %-40s | %8s | %10s | %9s | %10s | %12s |\n' 'run' 'file' 'findings' 'time' 'per second' 'peak RSS'
printf '|%s|%s|%s|%s|%s|%s|\n' '------------------------------------------' '----------' '------------' '-----------' '------------' '--------------'
for file in "$dir/sarif-100k.sarif" "$dir/trivy-100k.json" "$dir/twistlock-100k.json" "$dir/trivy-operator-100k.json" "$dir/nmap-100k.xml"; do
  name=$(basename "$file")
  measure "bulwark parse --count $name" node packages/cli/dist/main.js parse "$file" --count
  # JSON.parse is the floor of the JSON files; the XML has none here.
  [[ $file == *.xml ]] && continue
  measure "JSON.parse $name" node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); console.log(d.runs ? d.runs[0].results.length : d.Results ? d.Results.reduce((n,r)=>n+r.Vulnerabilities.length,0) : (d.results ?? d.items).reduce((n,r)=>n+(r.vulnerabilities ?? r.report.vulnerabilities).length,0))' "$file"
done
