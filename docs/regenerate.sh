#!/usr/bin/env bash
# Regenerates every quoted output and every picture of docs/*.md with the built gallocsim.
#
#   docs/regenerate.sh [--check] [GALLOCSIM]        (from the repository root;
#                                                   GALLOCSIM defaults to build/default/simulator/gallocsim)
#
# The docs mark what they quote with an HTML comment naming the gallocsim command (the
# words after "gallocsim:", run from the repository root). When a fenced block follows the
# comment, the block is replaced with the command line and its output:
#
#   <!-- gallocsim: trace seed --from 1 --to 4 -->
#   ```console
#   $ gallocsim trace seed --from 1 --to 4
#   ...its output, exactly...
#   ```
#
# When anything else follows, the command is only run: that is how pictures are made
# (<!-- gallocsim: render seed -o docs/images/seed-timeline.svg -->, then the image link).
# A command quoted for its failure is marked <!-- gallocsim-fails: ... -->: it must exit
# non-zero, and the block shows what it printed on both streams and its exit code.
# Commands may only read and write files under docs/ (and name built-in examples).
#
# --check regenerates everything in a scratch copy of docs/ and fails, showing the
# difference, if anything would change. ctest runs it, so the docs cannot drift from the
# program.
set -euo pipefail

check=false
if [[ ${1-} == --check ]]; then
    check=true
    shift
fi
if [[ ! -f docs/regenerate.sh ]]; then
    echo "regenerate.sh: run me from the repository root" >&2
    exit 2
fi
gallocsim=$(realpath "${1:-build/default/simulator/gallocsim}")
if [[ ! -x $gallocsim ]]; then
    echo "regenerate.sh: $gallocsim is not an executable; build first (cmake --build --preset default)" >&2
    exit 2
fi

marker='^<!-- gallocsim(-fails)?: (.*) -->$'
fence='^```'

# Rewrites one markdown file in place; its commands run in $2 (the folder holding docs/).
regenerate_file() {
    local file=$1 root=$2 out i=0 line args output status in_fence=false
    local -a lines
    mapfile -t lines <"$file"
    out=$(mktemp)
    while ((i < ${#lines[@]})); do
        line=${lines[i]}
        printf '%s\n' "$line" >>"$out"
        i=$((i + 1))
        if [[ $line =~ $fence ]]; then  # markers shown inside code blocks are examples, not markers
            if $in_fence; then in_fence=false; else in_fence=true; fi
        fi
        if $in_fence || [[ ! $line =~ $marker ]]; then
            continue
        fi
        fails=${BASH_REMATCH[1]}
        args=${BASH_REMATCH[2]}
        status=0
        # eval so that quoted arguments ('j 4') stay whole, as a reader's shell would keep them.
        if [[ -n $fails ]]; then
            output=$(cd "$root" && eval "\"\$gallocsim\" $args" 2>&1) || status=$?
        else
            output=$(cd "$root" && eval "\"\$gallocsim\" $args") || status=$?
        fi
        if [[ -z $fails && $status != 0 ]] || [[ -n $fails && $status == 0 ]]; then
            echo "${file#"$root"/}:$i: gallocsim $args exited with $status" >&2
            rm -f "$out"
            return 1
        fi
        [[ -n $fails ]] && output+=$'\n'"(exit $status)"
        if ((i < ${#lines[@]})) && [[ ${lines[i]} =~ $fence ]]; then
            i=$((i + 1))
            while ((i < ${#lines[@]})) && [[ ${lines[i]} != '```' ]]; do
                i=$((i + 1))
            done
            i=$((i + 1))  # the closing fence
            printf '```console\n$ gallocsim %s\n' "$args" >>"$out"
            [[ -n $output ]] && printf '%s\n' "$output" >>"$out"
            printf '```\n' >>"$out"
        fi
    done
    cat "$out" >"$file"
    rm -f "$out"
}

regenerate_all() {
    local root=$1 file
    for file in "$root"/docs/*.md; do
        regenerate_file "$file" "$root"
    done
}

if ! $check; then
    regenerate_all "$(pwd)"
    exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r docs "$scratch/docs"
regenerate_all "$scratch"
if ! diff -ru docs "$scratch/docs"; then
    echo "docs are out of date: run docs/regenerate.sh from the repository root and commit the result" >&2
    exit 1
fi
echo "docs: every quoted output and picture matches gallocsim"
