#!/usr/bin/env bash
# Prints the recorded answers in testdata/oracle/ as the Markdown of reference/observed-patch.md:
# per request the request line, the body, the status and, for errors, reason, message and details;
# for successes the resulting object with uid, timestamps and resourceVersions normalised.
set -euo pipefail
cd "$(dirname "$0")"
norm='walk(if type == "object" then
	(if has("uid") and (.uid|type) == "string" then .uid = "<uid>" else . end)
	| (if has("resourceVersion") then .resourceVersion = "<rv>" else . end)
	| (if has("creationTimestamp") and .creationTimestamp != null then .creationTimestamp = "<ts>" else . end)
	| (if has("time") and (.time|type) == "string" then .time = "<ts>" else . end)
	else . end)'
for f in oracle/*.json; do
	jq -r --argjson dummy 0 '
		"### `\(.name)` (\(input_filename | split("/")[-1]))\n\n" +
		"`\(if .verb == "create" then "POST" elif .verb == "update" then "PUT" else "PATCH" end) \(.path)\(if (.subresource // "") != "" then "/" + .subresource else "" end)\(if (.query // "") != "" then "?" + .query else "" end)`" +
		"\(if (.contentType // "") != "" then " — `Content-Type: \(.contentType)`" else "" end)\n\n" +
		"```\n\(if (.patch|length) > 2000 then .patch[0:300] + " … (\(.patch|length) bytes)" else .patch end)\n```\n\n" +
		"**\(.code)**" +
		(if .code >= 300 and (.response|type) == "object" then
			" `\(.response.reason // "")` — \(.response.message // "" | gsub("\n"; " ⏎ "))\n\n" +
			(if .response.details then "details: `\(.response.details | tojson)`\n" else "" end)
		else "\n" end) +
		(if (.warnings // []) != [] then "\nwarnings: \(.warnings | map("`Warning: " + . + "`") | join(", "))\n" else "" end)' "$f"
	if [ "$(jq .code "$f")" -lt 300 ]; then
		jq -r 'if .current then "resourceVersion \(.current.metadata.resourceVersion) → \(.response.metadata.resourceVersion)\(if .current.metadata.resourceVersion == .response.metadata.resourceVersion then " (unchanged: nothing was written)" else "" end); generation \(.current.metadata.generation // "-") → \(.response.metadata.generation // "-")\n" else "" end' "$f"
		echo '<details><summary>resulting object</summary>'; echo; echo '```json'
		jq -c "$norm | .response" "$f"
		echo '```'; echo; echo '</details>'
	fi
	echo
done
