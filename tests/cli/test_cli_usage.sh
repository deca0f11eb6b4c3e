#!/usr/bin/env bash
# The command line's manners: `lampsim help CMD` is CMD's own usage; a misspelt command,
# subcommand or option gets one line with a did-you-mean and exit 2; the exit status separates
# usage and input errors (2, nothing written) from run-time failures (1) as docs/quickstart.md says.
#   test_cli_usage.sh LAMPSIM
set -u
lampsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0 checks=0
fail() { fails=$((fails + 1)); echo "FAIL: $*"; }

# usage_error "description" "exact stderr" cmd...: exit 2, that one line on stderr, nothing on stdout
usage_error() {
  local desc=$1 want=$2; shift 2
  checks=$((checks + 1))
  "$@" > out 2> err; local rc=$?
  [ $rc -eq 2 ] || fail "$desc: exit $rc, expected 2"
  [ "$(cat err)" = "$want" ] || fail "$desc: stderr '$(cat err)', expected '$want'"
  [ -s out ] && fail "$desc: wrote to stdout: $(head -c 200 out)"
}
# status "description" N cmd...
status() {
  local desc=$1 want=$2; shift 2
  checks=$((checks + 1))
  "$@" > out 2> err; local rc=$?
  [ $rc -eq "$want" ] || fail "$desc: exit $rc, expected $want (stderr: $(head -c 300 err))"
}

# help CMD == CMD --help, for every command; help SUB-COMMAND too
for c in run validate config sweep report compare model fp; do
  checks=$((checks + 1))
  "$lampsim" help $c > help.txt 2>&1; rc=$?
  "$lampsim" $c --help > own.txt 2>&1
  [ $rc -eq 0 ] || fail "help $c: exit $rc"
  head -n 1 help.txt | grep -q "^usage: lampsim $c" || fail "help $c: first line '$(head -n 1 help.txt)'"
  cmp -s help.txt own.txt || fail "help $c differs from $c --help"
done
"$lampsim" help sweep run > help.txt; "$lampsim" sweep run --help > own.txt
cmp -s help.txt own.txt || fail "help sweep run differs from sweep run --help"
"$lampsim" help > help.txt; status "help" 0 "$lampsim" help
"$lampsim" --help > own.txt
cmp -s help.txt own.txt || fail "help differs from --help"
grep -q "Exit status: 0 success, 1 run-time failure, 2 usage or input error" help.txt || fail "--help does not give the exit codes"

# did-you-mean for commands, subcommands, operations and options
usage_error "misspelt command" "lampsim: unknown command 'runn'; did you mean 'run'?" "$lampsim" runn
usage_error "unknown command" "lampsim: unknown command 'frobnicate' (lampsim --help lists them)" "$lampsim" frobnicate
usage_error "help of a misspelt command" "lampsim: unknown command 'valdate'; did you mean 'validate'?" "$lampsim" help valdate
usage_error "misspelt global option" "lampsim: unknown option '--verison'; did you mean '--version'?" "$lampsim" --verison
usage_error "run --sett" "lampsim run: unknown option '--sett'; did you mean '--set'?" "$lampsim" run --sett algorithm.tau=0.5
usage_error "run --sett=" "lampsim run: unknown option '--sett=algorithm.tau=0.5'; did you mean '--set'?" "$lampsim" run --sett=algorithm.tau=0.5
usage_error "run --glden" "lampsim run: unknown option '--glden'; did you mean '--golden'?" "$lampsim" run --glden
usage_error "validate --biuld" "lampsim validate: unknown option '--biuld'; did you mean '--build'?" "$lampsim" validate --biuld x.yaml
usage_error "config --dmp" "lampsim config: unknown option '--dmp'; did you mean '--dump'?" "$lampsim" config --dmp
usage_error "sweep rn" "lampsim sweep: unknown subcommand 'rn'; did you mean 'run'?" "$lampsim" sweep rn x.yaml
usage_error "sweep run --quite" "lampsim sweep run: unknown option '--quite'; did you mean '--quiet'?" "$lampsim" sweep run --quite x.yaml
usage_error "sweep expand --cont" "lampsim sweep expand: unknown option '--cont'; did you mean '--count'?" "$lampsim" sweep expand --cont x.yaml
usage_error "sweep merge --stric" "lampsim sweep merge: unknown option '--stric'; did you mean '--strict'?" "$lampsim" sweep merge --stric d
usage_error "report --pyhton" "lampsim report: unknown option '--pyhton'; did you mean '--python'?" "$lampsim" report --pyhton p d
usage_error "compare --cvs" "lampsim compare: unknown option '--cvs'; did you mean '--csv'?" "$lampsim" compare --cvs d
usage_error "model --forse" "lampsim model: unknown option '--forse'; did you mean '--force'?" "$lampsim" model --forse m.yaml
usage_error "fp rond" "lampsim fp: unknown operation 'rond'; did you mean 'round'?" "$lampsim" fp rond e4m3 1
usage_error "fp --jsn" "lampsim fp: unknown option '--jsn'; did you mean '--json'?" "$lampsim" fp round --jsn e4m3 1
usage_error "nothing near" "lampsim run: unknown option '--zzzzzz' (lampsim run --help lists them)" "$lampsim" run --zzzzzz

# exit status: 2 for usage and input errors (nothing written), 1 for run-time failures
status "no command" 2 "$lampsim"
status "missing value" 2 "$lampsim" run -o
status "two configs" 2 "$lampsim" run a.yaml b.yaml
printf 'algorithm:\n  tua: 0.25\n' > bad.yaml
status "bad config (run)" 2 "$lampsim" run bad.yaml -o bad_out
[ -e bad_out ] && fail "bad config: run wrote bad_out"
status "bad config (validate)" 2 "$lampsim" validate bad.yaml
status "missing config file" 2 "$lampsim" run nosuch.yaml
status "not a run directory (report)" 2 "$lampsim" report .
status "a good run" 0 "$lampsim" run --golden --quiet -o good
status "existing output directory" 2 "$lampsim" run --golden --quiet -o good
status "plotting script fails (report)" 1 "$lampsim" report good --python /bin/false
mkdir sub && status "docs written where no file can be" 1 "$lampsim" config --docs "$tmp/sub/none/config.md"

echo "$((checks - fails)) of $checks checks passed"
[ $fails -eq 0 ]
