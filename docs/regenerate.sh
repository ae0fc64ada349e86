#!/usr/bin/env bash
# Regenerates every quoted output and every picture of docs/*.md with the built gallocsim and
# gallocsim-gui.
#
#   docs/regenerate.sh [--check] [GALLOCSIM [GALLOCSIM_GUI]]
#
# from the repository root. GALLOCSIM defaults to build/default/simulator/gallocsim,
# GALLOCSIM_GUI to gui/gallocsim-gui in GALLOCSIM's build folder; an empty GALLOCSIM_GUI
# (a build without Qt) leaves the screenshots as they are, and says so.
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
# Commands may only write files under docs/, and read files under docs/ and tests/data/ (and
# name built-in examples); a live run's screenshot also runs tests/e2e/generate.py with
# build/upstream's venv.
#
# Screenshots of the GUI are marked with the command that makes them, as a reader would type
# it, beside the image link:
#
#   <!-- QT_QPA_PLATFORM=offscreen gallocsim-gui --at-event 4 --screenshot docs/images/gui-seed-after-leafs.png -->
#
# --check regenerates everything in a scratch copy of docs/ whose pictures were deleted
# first, and fails, showing the difference, if anything would change or a picture is made by
# no command. Text and SVG pictures must match byte for byte; screenshots, whose PNG bytes
# depend on the encoder, must show the same pixels (gui/tests/png_compare.cpp says how close,
# and is found beside gallocsim-gui). ctest runs it, so the docs cannot drift from the program.
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
gui=${2-$(dirname "$(dirname "$gallocsim")")/gui/gallocsim-gui}
if [[ -n $gui ]]; then
    gui=$(realpath "$gui")
    if [[ ! -x $gui ]]; then
        echo "regenerate.sh: $gui is not an executable; build gallocsim-gui, or give \"\" to leave the screenshots" >&2
        exit 2
    fi
    compare=$(dirname "$gui")/png_compare
    if $check && [[ ! -x $compare ]]; then
        echo "regenerate.sh: $compare is not an executable; build it (cmake --build BUILD --target png_compare)" >&2
        exit 2
    fi
else
    echo "regenerate.sh: no gallocsim-gui: the screenshots are left as they are, not made again or checked" >&2
fi

marker='^<!-- gallocsim(-fails)?: (.*) -->$'
gui_marker='^<!-- QT_QPA_PLATFORM=offscreen gallocsim-gui (.*) -->$'
fence='^```'

# Makes one screenshot in $2 (the folder holding docs/): the picture is written where the
# command says, which must be under docs/.
screenshot() {
    local args=$1 root=$2 where=$3 output
    if [[ ! $args =~ --screenshot\ docs/[^\ ]+\.png ]]; then
        echo "$where: a gallocsim-gui marker must write its picture under docs/ (--screenshot docs/images/NAME.png)" >&2
        return 1
    fi
    [[ -z $gui ]] && return 0
    # A live run's screenshot runs a real program from build/upstream's venv: without it (no
    # .ci/install-upstream) the picture is kept as it is, and said so.
    if [[ $args == *" -- build/upstream/"* && ! -x $(pwd)/build/upstream/venv/bin/python ]]; then
        local picture=${args#*--screenshot }
        picture=${picture%% *}
        echo "$where: not made again: it runs build/upstream/venv/bin/python, which is not installed (.ci/install-upstream)" >&2
        [[ $root != "$(pwd)" ]] && cp "$picture" "$root/$picture"
        return 0
    fi
    if ! output=$(cd "$root" && eval "QT_QPA_PLATFORM=offscreen \"\$gui\" $args" 2>&1); then
        echo "$where: gallocsim-gui $args failed: $output" >&2
        return 1
    fi
}

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
        if ! $in_fence && [[ $line =~ $gui_marker ]]; then
            screenshot "${BASH_REMATCH[1]}" "$root" "${file#"$root"/}:$i" || { rm -f "$out"; return 1; }
            continue
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
ln -s "$(pwd)/tests" "$scratch/tests"  # the captures the screenshots open, read only
mkdir "$scratch/build"
ln -s "$(pwd)/build/upstream" "$scratch/build/upstream"  # the venv a live run's screenshot runs llama.cpp from
# Every picture must be made again: one that no command makes is missing from the scratch copy.
rm -f "$scratch"/docs/images/*.svg
[[ -n $gui ]] && rm -f "$scratch"/docs/images/*.png
regenerate_all "$scratch"
current=true
diff -ru --exclude='*.png' docs "$scratch/docs" || current=false
if [[ -n $gui ]]; then
    for picture in $( (cd docs && ls images/*.png; cd "$scratch/docs" && ls images/*.png) 2>/dev/null | sort -u); do
        if [[ ! -f docs/$picture ]]; then
            echo "docs/$picture: made by a command, but not in docs/" >&2
            current=false
        elif [[ ! -f $scratch/docs/$picture ]]; then
            echo "docs/$picture: no command in docs/*.md makes it" >&2
            current=false
        elif ! "$compare" "docs/$picture" "$scratch/docs/$picture"; then
            current=false
        fi
    done
fi
if ! $current; then
    echo "docs are out of date: run docs/regenerate.sh from the repository root, look at each picture, and commit the result" >&2
    exit 1
fi
if [[ -n $gui ]]; then
    echo "docs: every quoted output, picture and screenshot matches gallocsim and gallocsim-gui"
else
    echo "docs: every quoted output and picture matches gallocsim (the screenshots were not checked: no gallocsim-gui)"
fi
