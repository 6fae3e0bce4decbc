#!/usr/bin/env bash
# Terminal check: drives butlerctl and butleradm in a real terminal (tmux) and saves what
# the screen shows under bench/out/ (gitignored):
#
#   completion.txt  bash completion with the generated script (completions/butlerctl.bash):
#                   `butlerctl cluster get <TAB><TAB>` against examples/payments (named in
#                   BUTLER_MANIFESTS), a prefix, environments of a team, output formats
#   table.txt       `butlerctl team get payments --manifests examples/payments` on a
#                   terminal; table.ansi keeps the colour escapes (tmux capture-pane -e)
#   progress.txt    `butleradm env migrate` on a scratch copy of the example with 40 more
#                   unlabeled clusters, its progress bar redrawn in place (the whole
#                   scrollback; progress-frames.txt has the bar frames caught while it ran)
#
# Needs tmux and bash-completion (Debian packages; installed with apt-get when missing and
# running as root). Exit status 1 when a screen does not show what it should.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$root/bench/out"
mkdir -p "$out"

need=()
command -v tmux >/dev/null 2>&1 || need+=(tmux)
bashcomp=/usr/share/bash-completion/bash_completion
[ -r "$bashcomp" ] || need+=(bash-completion)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "tmux-check: installing ${need[*]}" >&2
    apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "tmux-check: needs ${need[*]} (apt-get install -y ${need[*]})" >&2
    exit 2
  fi
fi

make --no-print-directory build >/dev/null

# A scratch copy of the example, with 40 more clusters from before environments existed,
# so the migration has something to show.
work="$(mktemp -d)"
cp -r examples/payments "$work/payments"
for i in $(seq -w 1 40); do
  sed "s/name: ledger-legacy/name: legacy-$i/" examples/payments/clusters/ledger-legacy.yaml \
    >"$work/payments/clusters/legacy-$i.yaml"
done

T=(tmux -L "butler-tmux-check-$$" -f /dev/null)
cleanup() { "${T[@]}" kill-server >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

# A clean shell: no profile, no config, colour allowed, the freshly built binaries first.
"${T[@]}" new-session -d -s check -x 110 -y 32 \
  env -i HOME="$work" TERM=xterm-256color LANG=C.UTF-8 COLUMNS=110 \
  PATH="$root/bin:/usr/local/bin:/usr/bin:/bin" bash --noprofile --norc
"${T[@]}" set-option -g status off >/dev/null

screen() { "${T[@]}" capture-pane -p -t check "$@"; }
keys() { "${T[@]}" send-keys -t check "$@"; }
# wait_for REGEX [SECONDS]: until the screen matches.
wait_for() {
  local pat="$1" tries=$((${2:-10} * 20))
  while ! screen | grep -qE -- "$pat"; do
    tries=$((tries - 1))
    if [ "$tries" -le 0 ]; then
      echo "tmux-check: timed out waiting for /$pat/; the screen:" >&2
      screen >&2
      return 1
    fi
    sleep 0.05
  done
}
# run LINE: type a command, press Enter and wait for the next prompt.
run() {
  keys -l "$1"
  keys Enter
  wait_for '^\$ ?$' 30
}
fresh() { keys C-u; run clear; }
# save FILE TITLE: append the screen (trailing blank lines dropped) under a title.
save() {
  { echo "=== $2"; screen | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; echo; } >>"$out/$1"
}

: >"$out/completion.txt"
: >"$out/progress-frames.txt"
keys -l "PS1='\$ '; cd $work; source $bashcomp; source $root/completions/butlerctl.bash; source $root/completions/butleradm.bash; clear"
keys Enter
wait_for '^\$ ?$'
status=0

# 1. Completion, from the manifests named in the environment.
run "export BUTLER_MANIFESTS=$root/examples/payments"
fresh
keys -l 'butlerctl cluster get '
keys Tab; sleep 0.5; keys Tab
wait_for 'ledger-legacy' || status=1
save completion.txt 'butlerctl cluster get <TAB><TAB>'

fresh
keys -l 'butlerctl cluster get car'
keys Tab
wait_for 'get carol-sandbox- ?$' || status=1
keys Tab; sleep 0.5; keys Tab
wait_for 'carol-sandbox-2 ' || status=1
save completion.txt 'butlerctl cluster get car<TAB> (the common prefix), then <TAB><TAB>'

fresh
keys -l 'butlerctl cluster get bob'
keys Tab
wait_for 'butlerctl cluster get bob-checkout ?$' || status=1
save completion.txt 'butlerctl cluster get bob<TAB>'

fresh
keys -l 'butlerctl cluster create web --team payments --environment '
keys Tab; sleep 0.5; keys Tab
wait_for 'Customer-facing' || status=1
save completion.txt 'butlerctl cluster create web --team payments --environment <TAB><TAB>'

fresh
keys -l 'butlerctl team get payments -o '
keys Tab; sleep 0.5; keys Tab
wait_for 'names only' || status=1
save completion.txt 'butlerctl team get payments -o <TAB><TAB>'
fresh
run 'unset BUTLER_MANIFESTS; clear'

# 2. A table in colour.
run "butlerctl team get payments --manifests $root/examples/payments"
: >"$out/table.txt"
save table.txt 'butlerctl team get payments --manifests examples/payments'
screen -e >"$out/table.ansi"
if ! grep -q $'\e\[' "$out/table.ansi"; then
  echo "tmux-check: no colour in the team table" >&2
  status=1
fi

# 3. A progress bar: 41 unlabeled clusters into dev (over the member cap, hence the flag).
fresh
"${T[@]}" clear-history -t check
keys -l 'butleradm env migrate --team payments --environment dev --all --yes --allow-over-quota --as olivia@example.com --manifests payments --concurrency 2'
keys Enter
prev=""
for _ in $(seq 400); do
  s="$(screen | grep -E 'Migrating to' || true)"
  if [ -n "$s" ] && [ "$s" != "$prev" ]; then
    echo "$s" >>"$out/progress-frames.txt"
    prev="$s"
  fi
  if screen | grep -qE '^Summary:'; then break; fi
  sleep 0.02
done
wait_for '^\$ ?$' 30 || status=1
{ echo "=== butleradm env migrate ... (41 clusters to move; the whole scrollback)"; screen -S - | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; } >"$out/progress.txt"
grep -qE 'Migrating to "dev" \[#{30}\] 41/41' "$out/progress.txt" || { echo "tmux-check: no finished progress bar" >&2; status=1; }

echo "tmux-check: screens saved in bench/out/: completion.txt table.txt table.ansi ($(grep -o $'\e\[[0-9;]*m' "$out/table.ansi" | wc -l) colour escapes) progress.txt progress-frames.txt ($(wc -l <"$out/progress-frames.txt") frames)"
exit $status
