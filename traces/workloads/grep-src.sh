# Repeated searches over C and C++ headers: each round one slow whole-tree
# search (a back-reference, as a developer's "find repeated identifiers")
# and quick searches of subtrees.
i=0
for w in 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7; do
  i=$((i + 1))
  grep -r -c -E "([a-z_]{$w,}) .*\\1\\(" . > /dev/null
  grep -r -l -i copyright linux x86_64-linux-gnu > /dev/null
  [ $((i % 2)) -eq 0 ] && grep -r -n 'template *<' c++/12/bits > /dev/null
  [ $((i % 4)) -eq 0 ] && grep -r -c 'static inline' openssl linux > /dev/null
done
exit 0
