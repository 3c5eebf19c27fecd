#!/bin/sh
# check-tags.sh SOURCE_DIR: every design tag the tree cites exists, and no
# citation of a document or tracker outside the repository is left.
#
# A citation is `docs/design.md` followed by one tag or a list of them
# (".reg", "`.rec.pool`, `.rec.file`", "... and `.manifest`"), on its line or
# the next (a comment's leader in between is skipped). A tag is defined where
# a paragraph, list item or heading of docs/design.md starts with it; citing
# a family (".rel" for ".rel.files", ".wd.*") cites its tags. Exit 0 when all
# is well, else 1, naming each file and what is wrong in it.
set -u
src=${1:?usage: check-tags.sh SOURCE_DIR}
design=$src/docs/design.md
[ -f "$design" ] || { echo "check-tags: no $design"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Defined: a tag opening a line ("`.tag` ...", ".tag — ...", "- `.tag` ...")
# or in a heading's parentheses ("## No silence (`.silent`)").
{
  grep -oE '^(- )?`?\.[a-z][a-z0-9.]*[a-z0-9]' "$design" | sed 's/^- //; s/`//g'
  grep -E '^#' "$design" | grep -oE '\(`\.[a-z][a-z0-9.]*`\)' | tr -d '()`'
} | sort -u >"$tmp/defined"

# The files: text files of the tree, without .git, build trees (directories
# holding a CMakeCache.txt) and this script, whose patterns would match.
prune="-name .git"
for c in $(find "$src" -name .git -prune -o -name CMakeCache.txt -print); do
  prune="$prune -o -path ${c%/CMakeCache.txt}"
done
# shellcheck disable=SC2086 # $prune is a list of find arguments
find "$src" \( $prune \) -prune -o -type f ! -path "$src/tests/docs/check-tags.sh" -print |
  sort | tr '\n' '\0' | xargs -0 grep -lI '' >"$tmp/files"

# Cited: each file's lines joined, so that a citation broken over two lines
# is one; a family's ".*" and a sentence's full stop dropped.
tag='\.[a-z][a-z0-9._*]*'
lead='([][ */#`)]|//)*'
while IFS= read -r f; do
  tr '\n' ' ' <"$f" | grep -oE "docs/design\.md$lead$tag(\`?(,| and)$lead$tag)*" |
    sed 's|^docs/design\.md||' | grep -oE "$tag" | sed -E 's/\.\*$//; s/\.+$//' |
    sed "s|^|${f#"$src"/} |"
done <"$tmp/files" | sort -u >"$tmp/cited"

status=0
while read -r file t; do
  grep -qxF -- "$t" "$tmp/defined" && continue
  grep -qF -- "$t." "$tmp/defined" &&
    awk -v p="$t." 'index($0, p) == 1 { found = 1 } END { exit !found }' "$tmp/defined" && continue
  echo "$file: cites $t, which docs/design.md does not define"
  status=1
done <"$tmp/cited"

# Left: citations of what a maintainer with only the repository cannot read
# (the old design file's sections, tracker issues), also across a line break.
tr '\n' '\0' <"$tmp/files" | xargs -0 grep -nE 'DESIGN[.]md|DESIGN +(section|§)|[Ii]ssues? +#?[0-9]' |
  sed "s|^$src/||; s|\$|  <- cite docs/design.md by tag, or say the reason|" >"$tmp/left"
while IFS= read -r f; do
  tr '\n' ' ' <"$f" | grep -qE '[Ii]ssues?( *[*#/]+)+ +#?[0-9]|DESIGN( *[*#/]+)+ +(section|§)' &&
    echo "${f#"$src"/}: an issue or DESIGN section cited across a line break"
done <"$tmp/files" >>"$tmp/left"
if [ -s "$tmp/left" ]; then cat "$tmp/left"; status=1; fi

[ $status = 0 ] && echo "check-tags: $(wc -l <"$tmp/files") files, $(wc -l <"$tmp/cited") citations of $(wc -l <"$tmp/defined") defined tags, all resolve"
exit $status
