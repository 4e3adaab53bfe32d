# Start python RUNS times from the traced file system (interpreter, dynamic
# loader, shared libraries and standard library all copied there: every
# ELF page is mapped from it), each run importing a seeded, skewed choice of
# standard-library modules.  $1: the directory made by python-imports-setup.sh.
set -e
py=$1
runs=${2:-700}
mods=$(cat "$py/modules.txt")
awk -v runs="$runs" -v mods="$mods" 'BEGIN {
  srand(1); n = split(mods, m, " ")
  for (r = 0; r < runs; r++) {
    k = 4 + int(rand() * 12); line = ""
    for (j = 0; j < k; j++) { x = int(n * rand() ^ 2.5) + 1; line = line (j ? "," : "") m[x] }
    print line
  }
}' > /tmp/python-imports.$$
while read -r line; do
  PYTHONHOME=$py PYTHONDONTWRITEBYTECODE=1 PYTHONWARNINGS=ignore "$py/lib64/ld-linux-x86-64.so.2" \
    --library-path "$py/lib" "$py/bin/python3.11" -c "import $line" || true
done < /tmp/python-imports.$$
rm -f /tmp/python-imports.$$
