# Shared by the shell tests: a temporary directory removed on exit and check CONDITION MESSAGE,
# which evaluates CONDITION and counts it; finish_checks prints the tally and sets the exit status.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0; checks=0
check() { checks=$((checks+1)); if ! eval "$1"; then fails=$((fails+1)); echo "FAIL: $2"; fi; }
finish_checks() { echo "$((checks-fails)) of $checks checks passed"; [ $fails -eq 0 ]; }
