# bench/lib.sh: the timing loop the load benchmarks share (growth.sh, flux.sh,
# manifests.sh). Source it after `cd` to the repository root; it is not a script of its own.
#
#   bench_init TAG            GNU time is there; BENCH_TMP, a directory removed on exit
#   names=(...) cmds=(...)    what to time: a label and a command line (split on blanks)
#   bench_rounds RUNS [WHERE] one warm-up round, then RUNS rounds, each running every command
#                             once in turn (so a drift of the machine's speed touches all of
#                             them alike); a command that fails stops the script with its
#                             first lines, "failed WHERE" (a figure of a failed load means
#                             nothing). Commands whose label matches the glob BENCH_FINDINGS
#                             may also exit 4 (check's verdict on findings)
#   bench_stats               per command i: wall[i], cpu[i] (user + system: on a busy machine
#                             the steadier figure) and rss[i] (KiB) medians, rssmax[i] and
#                             spread[i] ("min-max" wall seconds)
#   median < FILE, ratio A B  helpers ("1.23x")

bench_init() {
  BENCH_TAG="$1"
  if [ ! -x /usr/bin/time ]; then
    echo "$BENCH_TAG: /usr/bin/time (GNU time) is needed for peak memory: apt-get install -y time" >&2
    exit 2
  fi
  BENCH_TMP="$(mktemp -d)"
  # shellcheck disable=SC2064 # the directory is known now
  trap "rm -rf '$BENCH_TMP'" EXIT
  BENCH_FINDINGS="${BENCH_FINDINGS:-}"
}

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# ratio A B: A / B as "1.23x"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }

bench_rounds() {
  local runs="$1" where="${2:+ $2}" round i rc w m u s
  local argv
  rm -rf "$BENCH_TMP/rounds"
  mkdir -p "$BENCH_TMP/rounds"
  for round in $(seq 0 "$runs"); do
    for i in "${!cmds[@]}"; do
      read -r -a argv <<<"${cmds[$i]}"
      rc=0
      /usr/bin/time -f '%e %M %U %S' -o "$BENCH_TMP/t" "${argv[@]}" >"$BENCH_TMP/out" 2>&1 || rc=$?
      # shellcheck disable=SC2053 # BENCH_FINDINGS is a glob
      if [ "$rc" != 0 ] && ! { [ "$rc" = 4 ] && [ -n "$BENCH_FINDINGS" ] && [[ "${names[$i]}" == $BENCH_FINDINGS ]]; }; then
        echo "$BENCH_TAG: ${names[$i]} failed$where (exit $rc):" >&2
        head -5 "$BENCH_TMP/out" >&2
        exit 2
      fi
      [ "$round" = 0 ] && continue # warm-up: page cache, binary
      read -r w m u s < <(tail -1 "$BENCH_TMP/t") # GNU time puts "Command exited ..." first
      echo "$w" >>"$BENCH_TMP/rounds/w$i"
      awk -v u="$u" -v s="$s" 'BEGIN {print u + s}' >>"$BENCH_TMP/rounds/c$i"
      echo "$m" >>"$BENCH_TMP/rounds/r$i"
    done
  done
}

bench_stats() {
  local i d="$BENCH_TMP/rounds"
  wall=() cpu=() rss=() rssmax=() spread=()
  for i in "${!cmds[@]}"; do
    wall[$i]="$(median <"$d/w$i")"
    cpu[$i]="$(median <"$d/c$i")"
    rss[$i]="$(median <"$d/r$i")"
    rssmax[$i]="$(sort -n "$d/r$i" | tail -1)"
    spread[$i]="$(sort -n "$d/w$i" | sed -n '1p;$p' | paste -sd- -)"
  done
}
