#!/bin/sh
# Everything the repository's sources and docs cite is in the repository.
#
# Scans every tracked source, script and document for paths under the
# repository's own top folders (docs/, common/, server/, ...) and fails on
# one that does not exist, and on any citation of material outside the
# repository (../shared/ and the like). Placeholders in capitals
# (scenarios/NAME.json) and a path's stem without extension
# (server/jsonout for jsonout.c and .h) are allowed.
#   check_cited_paths.sh TOP
set -eu
top=$1
cd "$top"
status=0
files=$(git ls-files -- '*.c' '*.h' '*.md' '*.txt' '*.py' '*.sh' '*.cmake' '*CMakeLists.txt' \
    '*.json' '*.yml' 'docker/*' '.ci/*' 2>/dev/null) || files=$(find . -type f \
    \( -name '*.[ch]' -o -name '*.md' -o -name '*.txt' -o -name '*.py' -o -name '*.sh' \) \
    -not -path './build*' | sed 's|^\./||')
for f in $files; do
    case "$f" in tests/build/check_cited_paths.sh) continue ;; esac
    # Citations of what is outside the repository.
    if grep -nE '(\.\./shared/|(^|[^a-z_])shared/(seeds|reference)/)' "$f" >/dev/null 2>&1; then
        grep -nE '(\.\./shared/|(^|[^a-z_])shared/(seeds|reference)/)' "$f" |
            sed "s|^|$f:|; s|$|  <- cites a file outside the repository|"
        status=1
    fi
    for p in $(grep -ohE '(^|[^A-Za-z0-9_./-])(docs|common|platform|server|client-cli|tests|scenarios|scripts|docker)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$f" 2>/dev/null |
               sed -E 's/^[^a-z]//' | sort -u); do
        case "$p" in *[A-Z]*[A-Z]*) case "$p" in *NAME*|*RULESET*|*TARGET*) continue ;; esac ;; esac
        [ -e "$p" ] && continue
        ls "$p".* >/dev/null 2>&1 && continue
        echo "$f: cites $p, which is not in the repository"
        status=1
    done
done
[ $status -eq 0 ] && echo "every cited path is in the repository"
exit $status
