#!/usr/bin/env bash
# lampsim fp and --version from the outside: outputs of the documented examples, and one-line
# errors with exit status 2 for unknown formats, malformed numbers, out-of-range codes and options.
set -u
lampsim=$1
fails=0; checks=0
expect_out() {   # expect_out "description" "expected stdout" cmd...
  local desc=$1 want=$2; shift 2
  local got; got=$("$@" 2>/dev/null); local rc=$?
  checks=$((checks+1))
  if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
    fails=$((fails+1)); printf 'FAIL %s: rc=%d\n  got:  %s\n  want: %s\n' "$desc" $rc "$got" "$want"
  fi
}
expect_err() {   # expect_err "description" "substring of stderr" cmd...
  local desc=$1 want=$2; shift 2
  local err; err=$("$@" 2>&1 >/dev/null); local rc=$?
  checks=$((checks+1))
  local lines; lines=$(printf '%s\n' "$err" | wc -l)
  if [ $rc -ne 2 ] || [[ "$err" != *"$want"* ]] || [ "$lines" -ne 1 ]; then
    fails=$((fails+1)); printf 'FAIL %s: rc=%d lines=%d stderr: %s\n' "$desc" $rc "$lines" "$err"
  fi
}

expect_out "round e4m3 0.3" $'0.3\t0.3125\t0x2A\tinexact' "$lampsim" fp round e4m3 0.3
expect_out "round e4m3 saturates 500" $'500\t448\t0x7E\tsaturated' "$lampsim" fp round e4m3 500
expect_out "round e4m3 nonsat 470" $'470\tnan\t0x7F\toverflow,nan' "$lampsim" fp round e4m3 --overflow nan 470
expect_out "round e4m3 rtz" $'0.3\t0.28125\t0x29\tinexact' "$lampsim" fp round e4m3 --rounding rtz 0.3
expect_out "round ue5m3x 2^-33 exact decimal" $'1.1641532182693481e-10\t1.16415321826934814453125e-10\t0x01\tsubnormal' \
  "$lampsim" fp round ue5m3x 1.1641532182693481e-10
expect_out "encode ue5m3s 23.5" "0xD4" "$lampsim" fp encode ue5m3s 23.5
expect_out "decode e4m11 0x7E01" $'0x7E01\t448.125' "$lampsim" fp decode e4m11 0x7E01
expect_out "decode e4m3 NaN" $'0x7F\tnan' "$lampsim" fp decode e4m3 127
expect_out "ps3 carry" $'500\t512\t0x440\tinexact' "$lampsim" fp round ps3 500
expect_out "round json" '[{"input":"1.0625","value":1,"code":"0x38","flags":["inexact"]}]' "$lampsim" fp round e4m3 1.0625 --json
expect_out "table e4m3 has 256 rows" "256" bash -c "\"$lampsim\" fp table e4m3 | wc -l"
expect_out "lut row 0xD3" $'0xD3\t22\t0x02\t2.3283064365386962890625e-10' bash -c "\"$lampsim\" fp lut | grep '^0xD3'"
expect_out "dot swamping" $'result\t16\nfloat64 sum\t20\nsaturations\t0' \
  "$lampsim" fp dot --a 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --b 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
expect_out "dot chunked" $'result\t20\nfloat64 sum\t20\nsaturations\t0' \
  "$lampsim" fp dot --chunk 20 --a 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --b 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
expect_out "dot reverse order (F-15)" $'result\t4\nfloat64 sum\t3.84375\nsaturations\t0' \
  "$lampsim" fp dot --order descending --a 0.75,-1.25,0.5,2 --b 1.5,0.375,-0.625,1.75
# .npy operands (any shape, flattened): vector 15 of the spec, reverse order final 4.0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/a.npy', np.array([[0.75,-1.25],[0.5,2]], np.float32)); np.save('$tmp/b.npy', np.array([1.5,0.375,-0.625,1.75], np.float32))"
expect_out "dot npy" $'result\t4\nfloat64 sum\t3.84375\nsaturations\t0' "$lampsim" fp dot --order descending "$tmp/a.npy" "$tmp/b.npy"
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/c.npy', np.zeros(3, np.float32))"
expect_err "dot npy count mismatch" "dot needs equal counts" "$lampsim" fp dot "$tmp/a.npy" "$tmp/c.npy"
expect_err "dot npy missing file" "nope.npy" "$lampsim" fp dot "$tmp/nope.npy" "$tmp/c.npy"
checks=$((checks+1))
if ! "$lampsim" --version | grep -Eq '^lampsim [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]+|unknown\)'; then
  fails=$((fails+1)); echo "FAIL --version format"
fi

expect_err "unknown format" "format 'q5m2': unknown format" "$lampsim" fp round q5m2 1
expect_err "bad format suffix" "format 'e5m2_x': suffixes are" "$lampsim" fp round e5m2_x 1
expect_err "format out of fp32's range" "exponent range exceeds float32's" "$lampsim" fp round e8m3 1
# any [u]eXmY with bias and specials rules, and a LUT between any two formats of up to 16 bits
expect_out "round e5m2_ieee" $'60000\t57344\t0x7B\tinexact\n1e6\tinf\t0x7C\toverflow' "$lampsim" fp round e5m2_ieee --overflow nan 60000 1e6
expect_out "decode ue4m2_b7_finite top code" $'0x3F\t448' "$lampsim" fp decode ue4m2_b7_finite 0x3F
expect_out "lut entries follow the shift code" "65536" bash -c "\"$lampsim\" fp lut ue5m11s ue5m11x | grep -c '^0x'"
expect_err "lut refuses a signed shift" "unsigned shift format of at most 16 bits" "$lampsim" fp lut ps3 ps3
expect_err "malformed number" "not a number: '1.5x'" "$lampsim" fp round e4m3 1.5x
expect_err "out-of-range code" "code 0x100 out of range for e4m3" "$lampsim" fp decode e4m3 0x100
expect_err "negative code" "not a code: '-1'" "$lampsim" fp decode e4m3 -1
expect_err "unknown option" "unknown option '--fast'" "$lampsim" fp round e4m3 1 --fast
expect_err "bad rounding" "--rounding takes rne, rtz or stochastic" "$lampsim" fp round e4m3 --rounding up 1
expect_err "bad model" "--model takes paper or exact" "$lampsim" fp dot --model fast --a 1 --b 1
# format names: a bias out of range says so; conflicting or repeated suffixes are refused (issue #25)
expect_err "bias out of range" "format 'e4m3_b99999': bias out of range" "$lampsim" fp round e4m3_b99999 1
expect_err "conflicting specials" "conflicting or repeated special-value suffixes" "$lampsim" fp round e4m3_ocp_ieee 1
expect_err "bias twice" "_b<bias> given twice" "$lampsim" fp round e4m3_b1_b2 1
expect_err "nosub twice" "_nosub given twice" "$lampsim" fp round e4m3_nosub_nosub 1
expect_out "suffixes in any order" $'1\t1\t0x7C\t-' "$lampsim" fp round ue5m2_finite_b31 1
# an unsigned accumulator is refused, as the engine refuses it (it printed "result nan", exit 0: issue #25 D11)
expect_err "unsigned accumulator" "an accumulator holds signed sums; this format is unsigned: 'ue5m3s'" \
  "$lampsim" fp dot --acc ue5m3s --a 1,2 --b 3,4
expect_err "unequal dot" "equal length" "$lampsim" fp dot --a 1,2 --b 1
expect_err "unknown op" "unknown operation 'sqrt'" "$lampsim" fp sqrt e4m3 1
expect_err "unknown command" "lampsim: unknown command 'frobnicate' (lampsim --help lists them)" "$lampsim" frobnicate

echo "$((checks-fails)) passed, $fails failed"
[ $fails -eq 0 ]
