# Copy the system's python3.11 (interpreter, dynamic loader, every shared
# library it or a lib-dynload module needs, the standard library with its
# byte code) into ./py, and list the importable modules in py/modules.txt.
set -e
mkdir -p py/bin py/lib py/lib64 py/lib/python3.11
cp /usr/bin/python3.11 py/bin/
cp -L /lib64/ld-linux-x86-64.so.2 py/lib64/
cp -a /usr/lib/python3.11/. py/lib/python3.11/
rm -rf py/lib/python3.11/test py/lib/python3.11/idlelib py/lib/python3.11/tkinter py/lib/python3.11/turtledemo
for f in /usr/bin/python3.11 /usr/lib/python3.11/lib-dynload/*.so; do
  ldd "$f" | awk '/=> \// { print $3 }'
done | sort -u | while read -r l; do cp -L "$l" py/lib/; done
PYTHONHOME=$PWD/py py/lib64/ld-linux-x86-64.so.2 --library-path py/lib py/bin/python3.11 -c '
import pkgutil, sys, importlib
ok = []
for m in sorted(set(x.name for x in pkgutil.iter_modules()) | set(sys.builtin_module_names)):
    if m.startswith("_") or m in ("this", "antigravity", "idlelib", "tkinter", "turtle", "turtledemo", "test", "pydoc", "lib2to3", "ensurepip", "venv"):
        continue
    try:
        importlib.import_module(m)
        ok.append(m)
    except BaseException:
        pass
print(" ".join(ok))' > py/modules.txt
